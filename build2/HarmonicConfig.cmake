# find_package(Harmonic) -> the imported target Harmonic::harmonic (libharmonic.so, its headers
# under include/harmonic, C++20, and the public dependencies below).

####### Expanded from @PACKAGE_INIT@ by configure_package_config_file() #######
####### Any changes to this file will be overwritten by the next CMake run ####
####### The input file was HarmonicConfig.cmake.in                            ########

get_filename_component(PACKAGE_PREFIX_DIR "${CMAKE_CURRENT_LIST_DIR}/../../../" ABSOLUTE)

macro(set_and_check _var _file)
  set(${_var} "${_file}")
  if(NOT EXISTS "${_file}")
    message(FATAL_ERROR "File or directory ${_file} referenced by variable ${_var} does not exist !")
  endif()
endmacro()

macro(check_required_components _NAME)
  foreach(comp ${${_NAME}_FIND_COMPONENTS})
    if(NOT ${_NAME}_${comp}_FOUND)
      if(${_NAME}_FIND_REQUIRED_${comp})
        set(${_NAME}_FOUND FALSE)
      endif()
    endif()
  endforeach()
endmacro()

####################################################################################

include(CMakeFindDependencyMacro)
find_dependency(fmt)
find_dependency(nlohmann_json)
find_dependency(OpenMP COMPONENTS CXX)

# Whether this libharmonic.so carries the CUDA backend (Harmonic::harmonic then defines
# HARMONIC_WITH_CUDA=1); the CUDA libraries are private to the shared library.
set(Harmonic_WITH_CUDA OFF)

include(${CMAKE_CURRENT_LIST_DIR}/HarmonicTargets.cmake)
check_required_components(Harmonic)
