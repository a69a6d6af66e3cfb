# jansson: its configure, built by detection (the library).
#
# Profile workload (the speed corpus, `mlgo profile package`): upstream's
# test suites (`make check`: test/bin/json_process decoding and encoding
# every valid and invalid document of test/suites, and the API tests).
profile_workload() { make check; }
