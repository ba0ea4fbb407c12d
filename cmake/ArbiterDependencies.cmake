# Every dependency comes from a Debian package or the CUDA toolkit; nothing is fetched.
# Header-only where the package allows it, static archives where they exist, so that the binary
# built on one Linux runs on another that has only glibc and libstdc++ (the GPU machines).
find_package(Threads REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_path(TOMLPP_INCLUDE_DIR toml++/toml.h REQUIRED)
find_package(CLI11 REQUIRED)
find_package(fmt REQUIRED)

find_path(XXHASH_INCLUDE_DIR xxhash.h REQUIRED)
add_library(arbiter_xxhash INTERFACE)
target_include_directories(arbiter_xxhash SYSTEM INTERFACE ${XXHASH_INCLUDE_DIR})
target_compile_definitions(arbiter_xxhash INTERFACE XXH_INLINE_ALL)

set(_arb_saved_suffixes ${CMAKE_FIND_LIBRARY_SUFFIXES})
set(CMAKE_FIND_LIBRARY_SUFFIXES .a ${CMAKE_FIND_LIBRARY_SUFFIXES})
find_library(ARB_SQLITE3_LIBRARY NAMES sqlite3 REQUIRED)
find_library(ARB_CRYPTO_LIBRARY NAMES crypto REQUIRED)
set(CMAKE_FIND_LIBRARY_SUFFIXES ${_arb_saved_suffixes})
find_path(ARB_SQLITE3_INCLUDE_DIR sqlite3.h REQUIRED)
find_path(ARB_OPENSSL_INCLUDE_DIR openssl/evp.h REQUIRED)

add_library(arbiter_sqlite3 INTERFACE)
target_include_directories(arbiter_sqlite3 SYSTEM INTERFACE ${ARB_SQLITE3_INCLUDE_DIR})
target_link_libraries(arbiter_sqlite3 INTERFACE ${ARB_SQLITE3_LIBRARY} Threads::Threads ${CMAKE_DL_LIBS} m)

add_library(arbiter_crypto INTERFACE)
target_include_directories(arbiter_crypto SYSTEM INTERFACE ${ARB_OPENSSL_INCLUDE_DIR})
target_link_libraries(arbiter_crypto INTERFACE ${ARB_CRYPTO_LIBRARY} Threads::Threads ${CMAKE_DL_LIBS})

# toml++ header-only (Debian's config target links libtomlplusplus.so, absent on GPU machines).
add_library(arbiter_toml INTERFACE)
target_include_directories(arbiter_toml SYSTEM INTERFACE ${TOMLPP_INCLUDE_DIR})
target_compile_definitions(arbiter_toml INTERFACE TOML_HEADER_ONLY=1)

# fmt header-only: no libfmt.so needed where the binary runs.
add_library(arbiter_fmt INTERFACE)
target_link_libraries(arbiter_fmt INTERFACE fmt::fmt-header-only)

# libseccomp (Debian libseccomp-dev) for the sandbox's system call filter, static where the
# package has the archive so that the binary needs no libseccomp where it runs. Optional: without
# it the sandbox runs without the filter and says so.
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(ARB_SECCOMP QUIET libseccomp)
endif()
add_library(arbiter_seccomp INTERFACE)
if(ARB_SECCOMP_FOUND)
  find_library(ARB_SECCOMP_STATIC NAMES libseccomp.a HINTS ${ARB_SECCOMP_LIBRARY_DIRS})
  target_include_directories(arbiter_seccomp SYSTEM INTERFACE ${ARB_SECCOMP_INCLUDE_DIRS})
  if(ARB_SECCOMP_STATIC)
    target_link_libraries(arbiter_seccomp INTERFACE ${ARB_SECCOMP_STATIC})
  else()
    target_link_libraries(arbiter_seccomp INTERFACE ${ARB_SECCOMP_LINK_LIBRARIES})
  endif()
  target_compile_definitions(arbiter_seccomp INTERFACE ARBITER_HAVE_SECCOMP=1)
else()
  message(STATUS "libseccomp not found: the sandbox is built without its system call filter")
  target_compile_definitions(arbiter_seccomp INTERFACE ARBITER_HAVE_SECCOMP=0)
endif()
