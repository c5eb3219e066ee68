# ctest "package: add_subdirectory": configures the parent project beside this script, which
# embeds Harmonic with add_subdirectory(), without building it (the library takes minutes).
#  1. without a build type: the parent's CMAKE_BUILD_TYPE stays empty (Harmonic sets its
#     Release default only as the top-level project); CMakeLists.txt checks the rest;
#  2. reconfigured as Release: the parent's own target compiles without Harmonic's warnings,
#     -march=native or math flags, while libharmonic's objects still get them.
# Usage: cmake -DSOURCE=<harmonic source dir> -DWORK=<scratch dir, wiped first> -P check.cmake
file(REMOVE_RECURSE ${WORK})

function(configure)
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE}/tests/subdir -B ${WORK} -DHARMONIC_ROOT=${SOURCE}
                          -DHARMONIC_CUDA=OFF -DCMAKE_EXPORT_COMPILE_COMMANDS=ON ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "configuring the parent project failed:\n${out}")
  endif()
endfunction()

configure()
file(STRINGS ${WORK}/CMakeCache.txt build_type REGEX "^CMAKE_BUILD_TYPE:")
if(NOT build_type MATCHES "^CMAKE_BUILD_TYPE:[A-Z]+=$")
  message(FATAL_ERROR "the parent's CMAKE_BUILD_TYPE changed: ${build_type}")
endif()

configure(-DCMAKE_BUILD_TYPE=Release)
file(READ ${WORK}/compile_commands.json commands)
string(JSON count LENGTH "${commands}")
math(EXPR last "${count} - 1")
set(app_command "")
set(library_command "")
foreach(i RANGE ${last})
  string(JSON file GET "${commands}" ${i} file)
  string(JSON command GET "${commands}" ${i} command)
  if(file MATCHES "tests/subdir/main.cpp$")
    set(app_command "${command}")
  elseif(file MATCHES "core/tensor.cpp$" OR file MATCHES "harmonic.dir/Unity/unity_[0-9]+_cxx.cxx$")
    set(library_command "${command}")  # one of the library's files, alone or in its unity batch
  endif()
endforeach()
if(NOT app_command OR NOT library_command)
  message(FATAL_ERROR "compile_commands.json lacks the parent's main.cpp or harmonic's core/tensor.cpp (or its unity batch)")
endif()
foreach(flag -march=native -Wall -Wextra -fno-math-errno -fno-trapping-math)
  string(FIND "${app_command}" " ${flag}" at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR "the parent's target inherits ${flag} from harmonic: ${app_command}")
  endif()
endforeach()
foreach(flag -Wall -fno-math-errno)   # the library itself keeps them (so the check above can see)
  string(FIND "${library_command}" " ${flag}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "harmonic's own objects lost ${flag}: ${library_command}")
  endif()
endforeach()
if(NOT app_command MATCHES "-std=(gnu|c)\\+\\+20")
  message(FATAL_ERROR "the parent's target does not get C++20 from harmonic: ${app_command}")
endif()
message(STATUS "add_subdirectory: parent build type kept, no flags leaked: ${app_command}")
