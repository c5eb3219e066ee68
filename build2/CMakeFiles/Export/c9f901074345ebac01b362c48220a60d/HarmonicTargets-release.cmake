#----------------------------------------------------------------
# Generated CMake target import file for configuration "Release".
#----------------------------------------------------------------

# Commands may need to know the format version.
set(CMAKE_IMPORT_FILE_VERSION 1)

# Import target "Harmonic::harmonic" for configuration "Release"
set_property(TARGET Harmonic::harmonic APPEND PROPERTY IMPORTED_CONFIGURATIONS RELEASE)
set_target_properties(Harmonic::harmonic PROPERTIES
  IMPORTED_LOCATION_RELEASE "${_IMPORT_PREFIX}/lib/libharmonic.so.0.1.0"
  IMPORTED_SONAME_RELEASE "libharmonic.so.0.1"
  )

list(APPEND _cmake_import_check_targets Harmonic::harmonic )
list(APPEND _cmake_import_check_files_for_Harmonic::harmonic "${_IMPORT_PREFIX}/lib/libharmonic.so.0.1.0" )

# Commands beyond this point should not need to know the version.
set(CMAKE_IMPORT_FILE_VERSION)
