# CUPTI and cuda.h for the evidence probe, wherever the toolkit put them: a full toolkit
# (lib64, extras/CUPTI/lib64), the pip-style layout (lib), or targets/<arch>-linux.
# Sets ARB_CUPTI_FOUND, ARB_CUPTI_INCLUDE_DIRS, ARB_CUPTI_LINK (what to link) and ARB_CUPTI_RPATH
# (where the loader looks for libcupti: the folder found here, $ORIGIN and the usual toolkit folders,
# because libcupti is rarely on a machine's default library path).
option(ARBITER_PROBE_STATIC_CUPTI "Link libcupti_static.a into the probe where it exists" OFF)

set(_arb_cuda_hints ${CUDAToolkit_ROOT} $ENV{CUDAToolkit_ROOT} $ENV{CUDA_HOME} $ENV{CUDA_PATH} /usr/local/cuda)
set(_arb_lib_suffixes lib64 lib extras/CUPTI/lib64 extras/CUPTI/lib targets/x86_64-linux/lib targets/sbsa-linux/lib)
set(_arb_inc_suffixes include extras/CUPTI/include targets/x86_64-linux/include targets/sbsa-linux/include)

find_path(ARB_CUPTI_INCLUDE_DIR cupti.h HINTS ${_arb_cuda_hints} PATH_SUFFIXES ${_arb_inc_suffixes})
find_path(ARB_CUDA_INCLUDE_DIR cuda.h HINTS ${_arb_cuda_hints} PATH_SUFFIXES ${_arb_inc_suffixes})
find_library(ARB_CUPTI_LIBRARY NAMES cupti libcupti.so.13 libcupti.so.12
             HINTS ${_arb_cuda_hints} PATH_SUFFIXES ${_arb_lib_suffixes})
find_library(ARB_CUPTI_STATIC_LIBRARY NAMES cupti_static HINTS ${_arb_cuda_hints} PATH_SUFFIXES ${_arb_lib_suffixes})

set(ARB_CUPTI_FOUND FALSE)
if(ARB_CUPTI_INCLUDE_DIR AND ARB_CUDA_INCLUDE_DIR AND (ARB_CUPTI_LIBRARY OR ARB_CUPTI_STATIC_LIBRARY))
  set(ARB_CUPTI_FOUND TRUE)
  set(ARB_CUPTI_INCLUDE_DIRS ${ARB_CUPTI_INCLUDE_DIR} ${ARB_CUDA_INCLUDE_DIR})
  if(ARBITER_PROBE_STATIC_CUPTI AND ARB_CUPTI_STATIC_LIBRARY OR NOT ARB_CUPTI_LIBRARY)
    set(ARB_CUPTI_LINK ${ARB_CUPTI_STATIC_LIBRARY} rt)
    message(STATUS "arbiter: probe links CUPTI statically: ${ARB_CUPTI_STATIC_LIBRARY}")
  else()
    set(ARB_CUPTI_LINK ${ARB_CUPTI_LIBRARY})
    message(STATUS "arbiter: probe links CUPTI: ${ARB_CUPTI_LIBRARY}")
  endif()
  get_filename_component(_arb_cupti_dir "${ARB_CUPTI_LIBRARY}" DIRECTORY)
  set(ARB_CUPTI_RPATH "${_arb_cupti_dir}" "\$ORIGIN")
  foreach(_arb_suffix lib64 extras/CUPTI/lib64 lib targets/x86_64-linux/lib)
    list(APPEND ARB_CUPTI_RPATH "/usr/local/cuda/${_arb_suffix}")
  endforeach()
  list(REMOVE_DUPLICATES ARB_CUPTI_RPATH)
endif()
