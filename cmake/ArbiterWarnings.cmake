# arbiter_target_warnings(<target>): the project's warning set, -Werror under ARBITER_ENABLE_WERROR.
function(arbiter_target_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic)
  if(ARBITER_ENABLE_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
  # GCC 12 reports -Wrestrict inside libstdc++'s own std::string code at -O3 (GCC bug 105329);
  # it is not about our code, so it must not fail a -Werror build.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    target_compile_options(${target} PRIVATE -Wno-restrict)
  endif()
endfunction()

# arbiter_add_library(<name> SOURCES ... DEPS ...): one static library per pipeline stage.
function(arbiter_add_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR}/include PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(${name} PUBLIC ${ARG_DEPS})
  arbiter_target_warnings(${name})
endfunction()
