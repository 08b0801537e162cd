/* SPDX-License-Identifier: MIT */
/*
 * What the quantizer test files share (test_quantize.c holds the
 * harness and the helpers; test_quantize_rules.c the rule-by-rule tests).
 */
#ifndef ENPU_TEST_QUANTIZE_H
#define ENPU_TEST_QUANTIZE_H

#include <stdint.h>
#include <stdio.h>

#include "enpu_quantize.h"
#include "onnx.pb-c.h"

#define QT_TOLERANCE 0.02

/* Fails the current test (returns 1) with a message. */
#define CHECK(cond, ...) \
	do { \
		if (!(cond)) { \
			printf("  FAIL %s:%d: ", __func__, __LINE__); \
			printf(__VA_ARGS__); \
			printf("\n"); \
			return 1; \
		} \
	} while (0)

struct test {
	const char *name;
	int (*fn)(void);
};

/* test_quantize_rules.c and test_quantize_edges.c; end with { NULL }. */
extern const struct test rule_tests[];
extern const struct test edge_tests[];

extern const char *workdir;
/* A path under the work directory (one of 4 rotating buffers). */
char *path_of(const char *fmt, ...);
/* @count samples of one input, each uniform in [lo, hi]. */
void write_calib(const char *dir, int rank, const int64_t *dims, int count,
		 float lo, float hi, float outlier);
/* enpu_quantize_file() on paths under the work directory. */
int quantize(const char *model, const char *calib, const char *out,
	     const struct enpu_quantize_options *o,
	     struct enpu_quantize_report *r);
/* Runs a one-input, one-output model; *y is malloc'd. */
int run_model(const char *model, int rank, const int64_t *dims,
	      const float *x, size_t n, float **y, size_t *ny);
double relative_error(const char *fmodel, const char *qmodel, int rank,
		      const int64_t *dims, int tests, float lo, float hi);
float init_scalar(const Onnx__GraphProto *g, const char *name);
/* The Q->DQ pair that feeds @name; NULL if it is not one. */
const Onnx__NodeProto *activation_dq(const Onnx__GraphProto *g,
				     const char *name);
/* A DQ over a constant initializer; NULL otherwise. */
const Onnx__NodeProto *constant_dq(const Onnx__GraphProto *g,
				   const char *name);

/* test_quantize_rules.c: x[1,8] and the image shape [1,1,2,4]. */
extern const int64_t row_dims[2], image_dims[4];
/* One sample per row of @rows (8 floats each) in @dir, shaped @rank. */
void write_shaped_rows(const char *dir, const float (*rows)[8], int count,
		       int rank);
/* The scale and zero point of the Q/DQ pair that feeds @op's input 0. */
int act_params(const char *model_path, const char *op, float *scale,
	       int32_t *zp, int32_t *zp_type);
/* test_quantize.c: the range q_tensor_range() picks for @hist (percentile
 * 99.99) over [min, max]. */
void method_range(enum enpu_quantize_method method, double min, double max,
		  uint64_t *hist, double *lo, double *hi);

#endif /* ENPU_TEST_QUANTIZE_H */
