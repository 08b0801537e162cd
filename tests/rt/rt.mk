# tests/rt: unit tests of the runtime core (loader, graph passes, executor,
# public API) on models built in memory, plus the fuzz corpus replay.
# `make test-rt` runs both.

TEST_RT_BIN := $(B)/tests/rt/test-rt
TEST_RT_SOURCES := tests/rt/test_rt.c tests/rt/model_builder.c \
	tests/rt/test_qdq.c tests/rt/qdq_reference.c tests/rt/mobilenet_model.c \
	tests/rt/test_backends.c tests/rt/test_loader.c tests/rt/test_loader_graph.c \
	tests/rt/test_loader_files.c tests/common/model_io.c

ALL_TARGETS += $(TEST_RT_BIN)
HOST_TESTS += test-rt

$(TEST_RT_BIN): $(TEST_RT_SOURCES) tests/rt/model_builder.h \
		tests/rt/qdq_reference.h tests/rt/mobilenet_model.h tests/rt/rt_open.h \
		tests/common/model_io.h \
		$(RT_HEADERS) \
		$(RT_LIB) $(RUNTIME_CPU_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) $(RT_INTERNAL_CFLAGS) -Itests/common -o $@ \
		$(TEST_RT_SOURCES) \
		$(RT_LDFLAGS)

.PHONY: test-rt
test-rt: $(TEST_RT_BIN) $(FUZZ_REPLAY_BIN)
	$(TEST_RT_BIN)
	$(FUZZ_REPLAY_BIN) $(CONFORMANCE_DATA)/node \
		$(CONFORMANCE_DATA)/pytorch-operator $(CONFORMANCE_DATA)/simple
