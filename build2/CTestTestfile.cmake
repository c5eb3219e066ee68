# CMake generated Testfile for 
# Source directory: /work/wt/layout
# Build directory: /work/wt/layout/build2
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
include("/work/wt/layout/build2/harmonic_tests_include-b858cb2.cmake")
add_test([=[cli: an interrupted study resumes to the same summary]=] "bash" "/work/wt/layout/tests/cli/study_resume.sh" "/work/wt/layout/build2/harmonic" "/work/wt/layout/build2/test_study_resume")
set_tests_properties([=[cli: an interrupted study resumes to the same summary]=] PROPERTIES  ENVIRONMENT "OMP_WAIT_POLICY=passive" TIMEOUT "300" _BACKTRACE_TRIPLES "/work/wt/layout/CMakeLists.txt;217;add_test;/work/wt/layout/CMakeLists.txt;0;")
add_test([=[package: install, find_package and pkg-config]=] "bash" "/work/wt/layout/tests/install/run.sh" "/work/wt/layout" "/work/wt/layout/build2" "/work/wt/layout/build2/package-tests/install")
set_tests_properties([=[package: install, find_package and pkg-config]=] PROPERTIES  ENVIRONMENT "CMAKE_GENERATOR=Ninja;CXX=/usr/bin/c++;CMAKE_CXX_COMPILER_LAUNCHER=ccache" LABELS "package" TIMEOUT "300" _BACKTRACE_TRIPLES "/work/wt/layout/CMakeLists.txt;232;add_test;/work/wt/layout/CMakeLists.txt;0;")
add_test([=[package: add_subdirectory]=] "/usr/bin/cmake" "-DSOURCE=/work/wt/layout" "-DWORK=/work/wt/layout/build2/package-tests/subdir" "-P" "/work/wt/layout/tests/subdir/check.cmake")
set_tests_properties([=[package: add_subdirectory]=] PROPERTIES  ENVIRONMENT "CMAKE_GENERATOR=Ninja;CXX=/usr/bin/c++;CMAKE_CXX_COMPILER_LAUNCHER=ccache" LABELS "package" TIMEOUT "300" _BACKTRACE_TRIPLES "/work/wt/layout/CMakeLists.txt;238;add_test;/work/wt/layout/CMakeLists.txt;0;")
add_test([=[user_task.train]=] "/work/wt/layout/build2/harmonic_user_task" "train" "my-task" "--set" "trainer.steps=20" "--force" "--out" "/work/wt/layout/build2/user_task_run")
set_tests_properties([=[user_task.train]=] PROPERTIES  ENVIRONMENT "OMP_WAIT_POLICY=passive" FIXTURES_SETUP "user_run" _BACKTRACE_TRIPLES "/work/wt/layout/CMakeLists.txt;248;add_test;/work/wt/layout/CMakeLists.txt;0;")
add_test([=[user_task.eval]=] "/work/wt/layout/build2/harmonic_user_task" "eval" "--out" "/work/wt/layout/build2/user_task_run" "--checkpoint" "best")
set_tests_properties([=[user_task.eval]=] PROPERTIES  ENVIRONMENT "OMP_WAIT_POLICY=passive" FIXTURES_REQUIRED "user_run" _BACKTRACE_TRIPLES "/work/wt/layout/CMakeLists.txt;249;add_test;/work/wt/layout/CMakeLists.txt;0;")
