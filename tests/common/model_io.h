/* SPDX-License-Identifier: MIT */
/*
 * What the model tests and benchmarks share (tests/models, tests/bench):
 * deterministic inputs from a textual spec, raw and TensorProto files,
 * and ONNX Runtime run as a child process that answers "run" requests
 * (ort_worker.js), so ours and ORT can be timed alternately in one run.
 */
#ifndef ENPU_TEST_MODEL_IO_H
#define ENPU_TEST_MODEL_IO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "enpu/enpu_rt.h"

#define MIO_MAX_INPUTS 8

struct mio_input {
	char name[128];
	int32_t dtype;		/* ENPU_RT_FLOAT or ENPU_RT_INT64 */
	int rank;
	int64_t dims[ENPU_RT_MAX_RANK];
	int constant;		/* "c<v>": all lo; "u<lo>,<hi>": uniform */
	double lo, hi;
};

/*
 * Parses "name:type:dims:values;..." (dims "1x3x224x224", "" for a
 * scalar; values "u-1,1" or "c16000"; names may contain ':'). Returns
 * the number of inputs, -1 on a syntax error.
 */
int mio_parse_inputs(const char *text, struct mio_input *in, int max);

size_t mio_elements(const struct mio_input *in);

/*
 * Input @index of sample @sample of the model called @name: malloc'd
 * data, *bytes its size. Deterministic (xorshift64* seeded by the three).
 */
void *mio_make_input(const char *name, const struct mio_input *in,
		     int index, int sample, size_t *bytes);

int mio_write_file(const char *path, const void *data, size_t bytes);
/* malloc'd contents of @path (NULL if unreadable), *bytes its size. */
void *mio_read_file(const char *path, size_t *bytes);
/* A TensorProto file (dims, data_type, name, raw_data). */
int mio_write_tensor_pb(const char *path, const struct mio_input *in,
			const void *data, size_t bytes);
/* Writes @inputs of sample 0 as DIR/input_<i>.bin plus DIR/inputs.txt. */
int mio_write_inputs(const char *dir, const char *name,
		     const struct mio_input *in, int count);
/* Calibration samples 1..@samples as DIR/<s>/input_<i>.pb. */
int mio_write_calibration(const char *dir, const char *name,
			  const struct mio_input *in, int count, int samples);

/* ONNX Runtime in a child process (tests/common/ort_worker.js). */
struct mio_ort {
	int pid;
	FILE *to, *from;
};

/*
 * Starts `node ort_worker.js MODEL INPUT_DIR THREADS` with NODE_PATH
 * from the environment; 0 when the session is ready.
 */
int mio_ort_start(struct mio_ort *ort, const char *script,
		  const char *model, const char *input_dir, int threads);
/* One timed run in ORT: its wall time in ms, or a negative value. */
double mio_ort_run(struct mio_ort *ort);
/* Asks the worker to write its last outputs as DIR/<prefix>_<o>.bin. */
int mio_ort_dump(struct mio_ort *ort, const char *dir, const char *prefix);
void mio_ort_stop(struct mio_ort *ort);

#endif /* ENPU_TEST_MODEL_IO_H */
