# Install script for directory: /work/wt/layout

# Set the install prefix
if(NOT DEFINED CMAKE_INSTALL_PREFIX)
  set(CMAKE_INSTALL_PREFIX "/usr/local")
endif()
string(REGEX REPLACE "/$" "" CMAKE_INSTALL_PREFIX "${CMAKE_INSTALL_PREFIX}")

# Set the install configuration name.
if(NOT DEFINED CMAKE_INSTALL_CONFIG_NAME)
  if(BUILD_TYPE)
    string(REGEX REPLACE "^[^A-Za-z0-9_]+" ""
           CMAKE_INSTALL_CONFIG_NAME "${BUILD_TYPE}")
  else()
    set(CMAKE_INSTALL_CONFIG_NAME "Release")
  endif()
  message(STATUS "Install configuration: \"${CMAKE_INSTALL_CONFIG_NAME}\"")
endif()

# Set the component getting installed.
if(NOT CMAKE_INSTALL_COMPONENT)
  if(COMPONENT)
    message(STATUS "Install component: \"${COMPONENT}\"")
    set(CMAKE_INSTALL_COMPONENT "${COMPONENT}")
  else()
    set(CMAKE_INSTALL_COMPONENT)
  endif()
endif()

# Install shared libraries without execute permission?
if(NOT DEFINED CMAKE_INSTALL_SO_NO_EXE)
  set(CMAKE_INSTALL_SO_NO_EXE "1")
endif()

# Is this installation the result of a crosscompile?
if(NOT DEFINED CMAKE_CROSSCOMPILING)
  set(CMAKE_CROSSCOMPILING "FALSE")
endif()

# Set default install directory permissions.
if(NOT DEFINED CMAKE_OBJDUMP)
  set(CMAKE_OBJDUMP "/usr/bin/objdump")
endif()

if(CMAKE_INSTALL_COMPONENT STREQUAL "Unspecified" OR NOT CMAKE_INSTALL_COMPONENT)
  file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}/include/harmonic/core" TYPE FILE FILES
    "/work/wt/layout/core/atomic_file.h"
    "/work/wt/layout/core/build_info.h"
    "/work/wt/layout/core/cpu_allocator.h"
    "/work/wt/layout/core/device.h"
    "/work/wt/layout/core/dispatch.h"
    "/work/wt/layout/core/dtype.h"
    "/work/wt/layout/core/error.h"
    "/work/wt/layout/core/factories.h"
    "/work/wt/layout/core/harmonic.h"
    "/work/wt/layout/core/host_device.h"
    "/work/wt/layout/core/parallel.h"
    "/work/wt/layout/core/philox.h"
    "/work/wt/layout/core/print.h"
    "/work/wt/layout/core/random.h"
    "/work/wt/layout/core/safetensors.h"
    "/work/wt/layout/core/shape.h"
    "/work/wt/layout/core/storage.h"
    "/work/wt/layout/core/strided_loop.h"
    "/work/wt/layout/core/tensor.h"
    )
endif()

if(CMAKE_INSTALL_COMPONENT STREQUAL "Unspecified" OR NOT CMAKE_INSTALL_COMPONENT)
  file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}/include/harmonic/autograd" TYPE FILE FILES
    "/work/wt/layout/autograd/grad_mode.h"
    "/work/wt/layout/autograd/gradcheck.h"
    "/work/wt/layout/autograd/node.h"
    )
endif()

if(CMAKE_INSTALL_COMPONENT STREQUAL "Unspecified" OR NOT CMAKE_INSTALL_COMPONENT)
  file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}/include/harmonic/ops" TYPE FILE FILES
    "/work/wt/layout/ops/autocast.h"
    "/work/wt/layout/ops/binary_functors.h"
    "/work/wt/layout/ops/binary_grad_functors.h"
    "/work/wt/layout/ops/dft.h"
    "/work/wt/layout/ops/elementwise.h"
    "/work/wt/layout/ops/elementwise_common.h"
    "/work/wt/layout/ops/fourier_attention.h"
    "/work/wt/layout/ops/fourier_attention_kernels.h"
    "/work/wt/layout/ops/fourier_head.h"
    "/work/wt/layout/ops/fourier_kernels.h"
    "/work/wt/layout/ops/fru_kernels.h"
    "/work/wt/layout/ops/fru_recurrence.h"
    "/work/wt/layout/ops/head_loss_kernels.h"
    "/work/wt/layout/ops/head_losses.h"
    "/work/wt/layout/ops/indexing.h"
    "/work/wt/layout/ops/indexing_kernels.h"
    "/work/wt/layout/ops/kernels.h"
    "/work/wt/layout/ops/linalg.h"
    "/work/wt/layout/ops/linalg_kernels.h"
    "/work/wt/layout/ops/nn_functional.h"
    "/work/wt/layout/ops/nn_functors.h"
    "/work/wt/layout/ops/nn_kernels.h"
    "/work/wt/layout/ops/ops.h"
    "/work/wt/layout/ops/reduce.h"
    "/work/wt/layout/ops/reduce_common.h"
    "/work/wt/layout/ops/reduce_functors.h"
    "/work/wt/layout/ops/reduce_kernels.h"
    "/work/wt/layout/ops/shape_common.h"
    "/work/wt/layout/ops/shape_kernels.h"
    "/work/wt/layout/ops/shape_ops.h"
    "/work/wt/layout/ops/unary_functors.h"
    "/work/wt/layout/ops/unary_kernels.h"
    )
endif()

if(CMAKE_INSTALL_COMPONENT STREQUAL "Unspecified" OR NOT CMAKE_INSTALL_COMPONENT)
  file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}/include/harmonic/ops/cpu" TYPE FILE FILES
    "/work/wt/layout/ops/cpu/reduce_loops.h"
    "/work/wt/layout/ops/cpu/vec_math.h"
    )
endif()

if(CMAKE_INSTALL_COMPONENT STREQUAL "Unspecified" OR NOT CMAKE_INSTALL_COMPONENT)
  file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}/include/harmonic/ops/registry" TYPE FILE FILES
    "/work/wt/layout/ops/registry/registry.h"
    "/work/wt/layout/ops/registry/run_op.h"
    )
endif()

if(CMAKE_INSTALL_COMPONENT STREQUAL "Unspecified" OR NOT CMAKE_INSTALL_COMPONENT)
  file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}/include/harmonic/nn" TYPE FILE FILES
    "/work/wt/layout/nn/activation.h"
    "/work/wt/layout/nn/attention.h"
    "/work/wt/layout/nn/attention_metrics.h"
    "/work/wt/layout/nn/density_metrics.h"
    "/work/wt/layout/nn/dropout.h"
    "/work/wt/layout/nn/embedding.h"
    "/work/wt/layout/nn/fourier_head.h"
    "/work/wt/layout/nn/fourier_score.h"
    "/work/wt/layout/nn/fru.h"
    "/work/wt/layout/nn/init.h"
    "/work/wt/layout/nn/linear.h"
    "/work/wt/layout/nn/lora.h"
    "/work/wt/layout/nn/module.h"
    "/work/wt/layout/nn/module_list.h"
    "/work/wt/layout/nn/normalization.h"
    "/work/wt/layout/nn/patch_embedding.h"
    "/work/wt/layout/nn/recurrent.h"
    "/work/wt/layout/nn/sequential.h"
    "/work/wt/layout/nn/transformer.h"
    )
endif()

if(CMAKE_INSTALL_COMPONENT STREQUAL "Unspecified" OR NOT CMAKE_INSTALL_COMPONENT)
  file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}/include/harmonic/optim" TYPE FILE FILES
    "/work/wt/layout/optim/adam.h"
    "/work/wt/layout/optim/checkpoint.h"
    "/work/wt/layout/optim/clip.h"
    "/work/wt/layout/optim/optim.h"
    "/work/wt/layout/optim/optim_functors.h"
    "/work/wt/layout/optim/optim_kernels.h"
    "/work/wt/layout/optim/optimizer.h"
    "/work/wt/layout/optim/schedule.h"
    "/work/wt/layout/optim/sgd.h"
    )
endif()

if(CMAKE_INSTALL_COMPONENT STREQUAL "Unspecified" OR NOT CMAKE_INSTALL_COMPONENT)
  file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}/include/harmonic/data" TYPE FILE FILES
    "/work/wt/layout/data/csv.h"
    "/work/wt/layout/data/dataset.h"
    "/work/wt/layout/data/datasets.h"
    "/work/wt/layout/data/idx.h"
    "/work/wt/layout/data/image_folder.h"
    "/work/wt/layout/data/loader.h"
    "/work/wt/layout/data/split.h"
    "/work/wt/layout/data/synthetic.h"
    "/work/wt/layout/data/text.h"
    "/work/wt/layout/data/toy_density.h"
    )
endif()

if(CMAKE_INSTALL_COMPONENT STREQUAL "Unspecified" OR NOT CMAKE_INSTALL_COMPONENT)
  file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}/include/harmonic/models" TYPE FILE FILES
    "/work/wt/layout/models/fourier_toy.h"
    "/work/wt/layout/models/gpt.h"
    "/work/wt/layout/models/sampling.h"
    "/work/wt/layout/models/spiral_mlp.h"
    "/work/wt/layout/models/t5.h"
    )
endif()

if(CMAKE_INSTALL_COMPONENT STREQUAL "Unspecified" OR NOT CMAKE_INSTALL_COMPONENT)
  file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}/include/harmonic/tools/train" TYPE FILE FILES
    "/work/wt/layout/tools/train/config.h"
    "/work/wt/layout/tools/train/grad_inspect.h"
    "/work/wt/layout/tools/train/run_pool.h"
    "/work/wt/layout/tools/train/task.h"
    "/work/wt/layout/tools/train/train_cli.h"
    "/work/wt/layout/tools/train/train_cli_args.h"
    "/work/wt/layout/tools/train/trainer.h"
    "/work/wt/layout/tools/train/trainer_internal.h"
    )
endif()

if(CMAKE_INSTALL_COMPONENT STREQUAL "Unspecified" OR NOT CMAKE_INSTALL_COMPONENT)
  file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}/include/harmonic/tools/report" TYPE FILE FILES
    "/work/wt/layout/tools/report/claims.h"
    "/work/wt/layout/tools/report/format.h"
    "/work/wt/layout/tools/report/markdown.h"
    "/work/wt/layout/tools/report/paper.h"
    "/work/wt/layout/tools/report/plot.h"
    "/work/wt/layout/tools/report/plot_canvas.h"
    "/work/wt/layout/tools/report/stats.h"
    )
endif()

if(CMAKE_INSTALL_COMPONENT STREQUAL "Unspecified" OR NOT CMAKE_INSTALL_COMPONENT)
  file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}/include/harmonic/cuda" TYPE FILE FILES
    "/work/wt/layout/cuda/allocator.h"
    "/work/wt/layout/cuda/context.h"
    "/work/wt/layout/cuda/emulation.h"
    "/work/wt/layout/cuda/runtime.h"
    "/work/wt/layout/cuda/timing.h"
    )
endif()

if(CMAKE_INSTALL_COMPONENT STREQUAL "Unspecified" OR NOT CMAKE_INSTALL_COMPONENT)
  foreach(file
      "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/lib/libharmonic.so.0.1.0"
      "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/lib/libharmonic.so.0.1"
      )
    if(EXISTS "${file}" AND
       NOT IS_SYMLINK "${file}")
      file(RPATH_CHECK
           FILE "${file}"
           RPATH "")
    endif()
  endforeach()
  file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}/lib" TYPE SHARED_LIBRARY FILES
    "/work/wt/layout/build2/libharmonic.so.0.1.0"
    "/work/wt/layout/build2/libharmonic.so.0.1"
    )
  foreach(file
      "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/lib/libharmonic.so.0.1.0"
      "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/lib/libharmonic.so.0.1"
      )
    if(EXISTS "${file}" AND
       NOT IS_SYMLINK "${file}")
      if(CMAKE_INSTALL_DO_STRIP)
        execute_process(COMMAND "/usr/bin/strip" "${file}")
      endif()
    endif()
  endforeach()
endif()

if(CMAKE_INSTALL_COMPONENT STREQUAL "Unspecified" OR NOT CMAKE_INSTALL_COMPONENT)
  if(EXISTS "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/lib/libharmonic.so" AND
     NOT IS_SYMLINK "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/lib/libharmonic.so")
    file(RPATH_CHECK
         FILE "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/lib/libharmonic.so"
         RPATH "")
  endif()
  file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}/lib" TYPE SHARED_LIBRARY FILES "/work/wt/layout/build2/libharmonic.so")
  if(EXISTS "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/lib/libharmonic.so" AND
     NOT IS_SYMLINK "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/lib/libharmonic.so")
    if(CMAKE_INSTALL_DO_STRIP)
      execute_process(COMMAND "/usr/bin/strip" "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/lib/libharmonic.so")
    endif()
  endif()
endif()

if(CMAKE_INSTALL_COMPONENT STREQUAL "Unspecified" OR NOT CMAKE_INSTALL_COMPONENT)
  if(EXISTS "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/bin/harmonic" AND
     NOT IS_SYMLINK "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/bin/harmonic")
    file(RPATH_CHECK
         FILE "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/bin/harmonic"
         RPATH "\$ORIGIN/../lib")
  endif()
  file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}/bin" TYPE EXECUTABLE FILES "/work/wt/layout/build2/harmonic")
  if(EXISTS "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/bin/harmonic" AND
     NOT IS_SYMLINK "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/bin/harmonic")
    file(RPATH_CHANGE
         FILE "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/bin/harmonic"
         OLD_RPATH "/work/wt/layout/build2:"
         NEW_RPATH "\$ORIGIN/../lib")
    if(CMAKE_INSTALL_DO_STRIP)
      execute_process(COMMAND "/usr/bin/strip" "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/bin/harmonic")
    endif()
  endif()
endif()

if(CMAKE_INSTALL_COMPONENT STREQUAL "Unspecified" OR NOT CMAKE_INSTALL_COMPONENT)
  if(EXISTS "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/lib/cmake/Harmonic/HarmonicTargets.cmake")
    file(DIFFERENT _cmake_export_file_changed FILES
         "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/lib/cmake/Harmonic/HarmonicTargets.cmake"
         "/work/wt/layout/build2/CMakeFiles/Export/c9f901074345ebac01b362c48220a60d/HarmonicTargets.cmake")
    if(_cmake_export_file_changed)
      file(GLOB _cmake_old_config_files "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/lib/cmake/Harmonic/HarmonicTargets-*.cmake")
      if(_cmake_old_config_files)
        string(REPLACE ";" ", " _cmake_old_config_files_text "${_cmake_old_config_files}")
        message(STATUS "Old export file \"$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/lib/cmake/Harmonic/HarmonicTargets.cmake\" will be replaced.  Removing files [${_cmake_old_config_files_text}].")
        unset(_cmake_old_config_files_text)
        file(REMOVE ${_cmake_old_config_files})
      endif()
      unset(_cmake_old_config_files)
    endif()
    unset(_cmake_export_file_changed)
  endif()
  file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}/lib/cmake/Harmonic" TYPE FILE FILES "/work/wt/layout/build2/CMakeFiles/Export/c9f901074345ebac01b362c48220a60d/HarmonicTargets.cmake")
  if(CMAKE_INSTALL_CONFIG_NAME MATCHES "^([Rr][Ee][Ll][Ee][Aa][Ss][Ee])$")
    file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}/lib/cmake/Harmonic" TYPE FILE FILES "/work/wt/layout/build2/CMakeFiles/Export/c9f901074345ebac01b362c48220a60d/HarmonicTargets-release.cmake")
  endif()
endif()

if(CMAKE_INSTALL_COMPONENT STREQUAL "Unspecified" OR NOT CMAKE_INSTALL_COMPONENT)
  file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}/lib/cmake/Harmonic" TYPE FILE FILES
    "/work/wt/layout/build2/HarmonicConfig.cmake"
    "/work/wt/layout/build2/HarmonicConfigVersion.cmake"
    )
endif()

if(CMAKE_INSTALL_COMPONENT STREQUAL "Unspecified" OR NOT CMAKE_INSTALL_COMPONENT)
  file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}/lib/pkgconfig" TYPE FILE FILES "/work/wt/layout/build2/harmonic.pc")
endif()

if(CMAKE_INSTALL_COMPONENT)
  set(CMAKE_INSTALL_MANIFEST "install_manifest_${CMAKE_INSTALL_COMPONENT}.txt")
else()
  set(CMAKE_INSTALL_MANIFEST "install_manifest.txt")
endif()

string(REPLACE ";" "\n" CMAKE_INSTALL_MANIFEST_CONTENT
       "${CMAKE_INSTALL_MANIFEST_FILES}")
file(WRITE "/work/wt/layout/build2/${CMAKE_INSTALL_MANIFEST}"
     "${CMAKE_INSTALL_MANIFEST_CONTENT}")
