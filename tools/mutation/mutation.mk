# SPDX-License-Identifier: GPL-2.0
#
# `make mutation-score`: how many small edits of the command validator, the
# vnpu checker, the ONNX loader, the quantizer and the CPU kernels their
# test tiers notice (tools/mutation/README.md). Not part of `make check`:
# it rebuilds and tests about 160 mutants on a copy of the tree.

MUTATION_SEED ?= 8
MUTATION_PER_DIR ?= 32
MUTATION_ONLY ?=
MUTATION_REPORT := $(B)/mutation/report.txt

.PHONY: mutation-score
mutation-score:
	python3 tools/mutation/mutate.py --seed $(MUTATION_SEED) \
		--per-dir $(MUTATION_PER_DIR) --report $(MUTATION_REPORT) \
		$(addprefix --only ,$(MUTATION_ONLY))
