# ctest's first test in a tree configured with -DMLGO_UNITTESTS_IN_ALL=OFF
# (unittests/CMakeLists.txt): fails, naming what is missing and the command
# that builds it, unless every unit-test program exists.
#
#   cmake -DFILES=<program>;<program>... -P CheckBuilt.cmake
set(missing "")
foreach(file ${FILES})
  if(NOT EXISTS "${file}")
    get_filename_component(name "${file}" NAME)
    list(APPEND missing ${name})
  endif()
endforeach()
list(LENGTH FILES total)
list(LENGTH missing count)
if(count GREATER 0)
  list(JOIN missing " " names)
  message(FATAL_ERROR
    "${count} of ${total} unit-test programs are not built (${names}): this "
    "tree is configured with -DMLGO_UNITTESTS_IN_ALL=OFF, as ./test.sh "
    "configures build/, so `ninja` leaves them out; build them with "
    "`ninja mlgo-unittests`, or run them as ./test.sh does, in its "
    "ASan/UBSan build (build-fuzz)")
endif()
message(STATUS "all ${total} unit-test programs are built")
