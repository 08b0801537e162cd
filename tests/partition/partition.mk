# tests/partition: the partitioner on synthetic graphs with mock backends.

TEST_PARTITION_BIN := $(B)/tests/partition/test-partition

ALL_TARGETS += $(TEST_PARTITION_BIN)
HOST_TESTS += test-partition
.PHONY: test-partition

$(TEST_PARTITION_BIN): tests/partition/test_partition.c $(RT_HEADERS) \
		$(RT_LIB) $(RUNTIME_CPU_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) $(RT_INTERNAL_CFLAGS) -o $@ $< $(RT_LDFLAGS)

test-partition: $(TEST_PARTITION_BIN)
	$(TEST_PARTITION_BIN)
