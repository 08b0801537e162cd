// SPDX-License-Identifier: MIT
/*
 * digits-train: trains the demo's small CNN on the UCI handwritten digits
 * (8x8 images, 0..16; the copy scikit-learn ships, fetched by
 * `tools/deps.sh demo`) in float on the host and writes
 *
 *   DIR/digits-fp32.onnx     the trained model (opset 13)
 *   DIR/calib/<i>/input_0.pb calibration samples for enpu-quantize
 *   DIR/digits-test.bin      the held-out images and labels
 *
 * The split is fixed (every 5th sample held out: 360 of 1797), the
 * initialisation seeded and the arithmetic single-threaded, so the same
 * data gives the same model on every run.
 *
 * Network (NCHW, batch 1):
 *   image [1,1,8,8] (pixels / 16)
 *   Conv 3x3 1->16 pad 1, Relu                  [1,16,8,8]
 *   Conv 3x3 16->32 stride 2 pad 1, Relu        [1,32,4,4]  a
 *   Conv 3x3 32->32 pad 1, Relu                 [1,32,4,4]  b
 *   Add(a, b), GlobalAveragePool, Flatten       [1,32]
 *   Gemm 32->10 (transB), Softmax               probabilities [1,10]
 * trained with Adam on cross-entropy, mini-batches of 32.
 *
 * usage: digits-train DIGITS.csv[.gz] DIR [--epochs N]
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model_builder.h"
#include "rt_types.h"

#define SAMPLES_MAX 2000
#define PIXELS 64
#define CLASSES 10
#define CALIB_SAMPLES 64
#define BATCH 32

struct dataset {
	float x[SAMPLES_MAX][PIXELS];
	uint8_t y[SAMPLES_MAX];
	size_t n;
};

/* A parameter tensor with its gradient and Adam moments. */
struct param {
	float *w, *g, *m, *v;
	size_t n;
};

struct conv {
	struct param w, b;
	int cin, cout, k, stride, pad, in_h, out_h;
};

struct net {
	struct conv c1, c2, c3;
	struct param fw, fb;	/* [10][32], [10] */
};

/* Activations of one sample, kept for the backward pass. */
struct trace {
	float x[1 * 8 * 8];
	float y1[16 * 8 * 8];
	float y2[32 * 4 * 4];
	float y3[32 * 4 * 4];
	float r[32 * 4 * 4];
	float g[32];
	float p[CLASSES];
};

static uint64_t rng = 0x2545f4914f6cdd1dull;

static double uniform(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (double)((rng * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

static double normal(void)
{
	double u = uniform() + 1e-12, v = uniform();

	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

static int param_init(struct param *p, size_t n, double scale)
{
	p->n = n;
	p->w = calloc(n, sizeof(float));
	p->g = calloc(n, sizeof(float));
	p->m = calloc(n, sizeof(float));
	p->v = calloc(n, sizeof(float));
	if (!p->w || !p->g || !p->m || !p->v)
		return -1;
	for (size_t i = 0; i < n && scale > 0; i++)
		p->w[i] = (float)(normal() * scale);
	return 0;
}

static int conv_init(struct conv *c, int cin, int cout, int stride,
		     int in_h)
{
	c->cin = cin;
	c->cout = cout;
	c->k = 3;
	c->stride = stride;
	c->pad = 1;
	c->in_h = in_h;
	c->out_h = (in_h + 2 - 3) / stride + 1;
	/* He initialisation for ReLU. */
	if (param_init(&c->w, (size_t)cout * cin * 9, sqrt(2.0 / (cin * 9))))
		return -1;
	return param_init(&c->b, (size_t)cout, 0);
}

static void conv_forward(const struct conv *c, const float *in, float *out)
{
	int h = c->in_h, oh = c->out_h;

	for (int o = 0; o < c->cout; o++)
		for (int y = 0; y < oh; y++)
			for (int x = 0; x < oh; x++) {
				float acc = c->b.w[o];

				for (int i = 0; i < c->cin; i++)
					for (int ky = 0; ky < 3; ky++) {
						int iy = y * c->stride + ky - c->pad;

						if (iy < 0 || iy >= h)
							continue;
						for (int kx = 0; kx < 3; kx++) {
							int ix = x * c->stride + kx - c->pad;

							if (ix < 0 || ix >= h)
								continue;
							acc += c->w.w[((o * c->cin + i) * 3 + ky) * 3 + kx] *
							       in[(i * h + iy) * h + ix];
						}
					}
				out[(o * oh + y) * oh + x] = acc > 0 ? acc : 0;
			}
}

/* @dout is the gradient at the ReLU's output; @out its value. */
static void conv_backward(struct conv *c, const float *in, const float *out,
			  float *dout, float *din)
{
	int h = c->in_h, oh = c->out_h;

	if (din)
		memset(din, 0, sizeof(float) * (size_t)c->cin * h * h);
	for (int o = 0; o < c->cout; o++)
		for (int y = 0; y < oh; y++)
			for (int x = 0; x < oh; x++) {
				size_t at = (size_t)(o * oh + y) * oh + x;
				float d = out[at] > 0 ? dout[at] : 0;

				if (d == 0)
					continue;
				c->b.g[o] += d;
				for (int i = 0; i < c->cin; i++)
					for (int ky = 0; ky < 3; ky++) {
						int iy = y * c->stride + ky - c->pad;

						if (iy < 0 || iy >= h)
							continue;
						for (int kx = 0; kx < 3; kx++) {
							int ix = x * c->stride + kx - c->pad;
							size_t wi = ((size_t)(o * c->cin + i) * 3 + ky) * 3 + kx;
							size_t ii = (size_t)(i * h + iy) * h + ix;

							if (ix < 0 || ix >= h)
								continue;
							c->w.g[wi] += d * in[ii];
							if (din)
								din[ii] += d * c->w.w[wi];
						}
					}
			}
}

static void forward(const struct net *n, const float *image, struct trace *t)
{
	double sum = 0, top = -1e30;

	memcpy(t->x, image, sizeof(t->x));
	conv_forward(&n->c1, t->x, t->y1);
	conv_forward(&n->c2, t->y1, t->y2);
	conv_forward(&n->c3, t->y2, t->y3);
	for (int i = 0; i < 32 * 16; i++)
		t->r[i] = t->y2[i] + t->y3[i];
	for (int c = 0; c < 32; c++) {
		float acc = 0;

		for (int i = 0; i < 16; i++)
			acc += t->r[c * 16 + i];
		t->g[c] = acc / 16;
	}
	for (int k = 0; k < CLASSES; k++) {
		float acc = n->fb.w[k];

		for (int c = 0; c < 32; c++)
			acc += n->fw.w[k * 32 + c] * t->g[c];
		t->p[k] = acc;
		if (acc > top)
			top = acc;
	}
	for (int k = 0; k < CLASSES; k++) {
		t->p[k] = (float)exp(t->p[k] - top);
		sum += t->p[k];
	}
	for (int k = 0; k < CLASSES; k++)
		t->p[k] = (float)(t->p[k] / sum);
}

static void backward(struct net *n, const struct trace *t, int label)
{
	float dlogit[CLASSES], dg[32], dr[32 * 16], dy2[32 * 16], dy1[16 * 64];
	float dy3[32 * 16];

	for (int k = 0; k < CLASSES; k++)
		dlogit[k] = t->p[k] - (k == label);
	memset(dg, 0, sizeof(dg));
	for (int k = 0; k < CLASSES; k++) {
		n->fb.g[k] += dlogit[k];
		for (int c = 0; c < 32; c++) {
			n->fw.g[k * 32 + c] += dlogit[k] * t->g[c];
			dg[c] += dlogit[k] * n->fw.w[k * 32 + c];
		}
	}
	for (int c = 0; c < 32; c++)
		for (int i = 0; i < 16; i++)
			dr[c * 16 + i] = dg[c] / 16;
	memcpy(dy3, dr, sizeof(dr));
	conv_backward(&n->c3, t->y2, t->y3, dy3, dy2);
	for (int i = 0; i < 32 * 16; i++)
		dy2[i] += dr[i];
	conv_backward(&n->c2, t->y1, t->y2, dy2, dy1);
	conv_backward(&n->c1, t->x, t->y1, dy1, NULL);
}

static void adam(struct param *p, int step, double lr, int batch)
{
	const double b1 = 0.9, b2 = 0.999;
	double c1 = 1 - pow(b1, step), c2 = 1 - pow(b2, step);

	for (size_t i = 0; i < p->n; i++) {
		double g = p->g[i] / batch;

		p->m[i] = (float)(b1 * p->m[i] + (1 - b1) * g);
		p->v[i] = (float)(b2 * p->v[i] + (1 - b2) * g * g);
		p->w[i] -= (float)(lr * (p->m[i] / c1) /
				   (sqrt(p->v[i] / c2) + 1e-8));
		p->g[i] = 0;
	}
}

static int argmax(const float *p)
{
	int best = 0;

	for (int k = 1; k < CLASSES; k++)
		if (p[k] > p[best])
			best = k;
	return best;
}

static int read_digits(const char *path, struct dataset *d)
{
	char cmd[600], line[1024];
	FILE *f;
	size_t len = strlen(path);
	int gz = len > 3 && !strcmp(path + len - 3, ".gz");

	if (gz) {
		snprintf(cmd, sizeof(cmd), "gzip -dc '%s'", path);
		f = popen(cmd, "r");
	} else {
		f = fopen(path, "r");
	}
	if (!f)
		return -1;
	d->n = 0;
	while (d->n < SAMPLES_MAX && fgets(line, sizeof(line), f)) {
		char *s = line, *end;
		int ok = 1;

		for (int i = 0; i <= PIXELS && ok; i++) {
			long v = strtol(s, &end, 10);

			ok = end != s && v >= 0 && v <= 16 &&
			     (i < PIXELS || v < CLASSES);
			if (i < PIXELS)
				d->x[d->n][i] = (float)v / 16;
			else
				d->y[d->n] = (uint8_t)v;
			s = end + (*end == ',');
		}
		if (ok)
			d->n++;
	}
	if (gz)
		pclose(f);
	else
		fclose(f);
	return d->n >= 100 ? 0 : -1;
}

static void add_conv(struct model_builder *mb, const struct conv *c,
		     const char *name, const char *in, const char *out)
{
	int64_t wd[4] = { c->cout, c->cin, 3, 3 }, bd[1] = { c->cout };
	int64_t ks[2] = { 3, 3 }, st[2] = { c->stride, c->stride };
	int64_t pads[4] = { 1, 1, 1, 1 };
	char w[64], b[64], args[200], conv_out[64];
	Onnx__NodeProto *n;

	snprintf(w, sizeof(w), "%s.weight", name);
	snprintf(b, sizeof(b), "%s.bias", name);
	snprintf(conv_out, sizeof(conv_out), "%s.out", name);
	mb_initializer(mb, w, ENPU_RT_FLOAT, 4, wd, c->w.w, c->w.n * 4);
	mb_initializer(mb, b, ENPU_RT_FLOAT, 1, bd, c->b.w, c->b.n * 4);
	snprintf(args, sizeof(args), "%s,%s,%s", in, w, b);
	n = mb_node(mb, "Conv", args, conv_out);
	mb_node_name(mb, n, name);
	mb_attr_ints(mb, n, "kernel_shape", ks, 2);
	mb_attr_ints(mb, n, "strides", st, 2);
	mb_attr_ints(mb, n, "pads", pads, 4);
	n = mb_node(mb, "Relu", conv_out, out);
}

static int write_bytes(const char *path, const void *data, size_t size)
{
	FILE *f = fopen(path, "wb");
	int ok;

	if (!f)
		return -1;
	ok = fwrite(data, 1, size, f) == size;
	ok = !fclose(f) && ok;
	return ok ? 0 : -1;
}

static int write_model(const struct net *n, const char *dir)
{
	int64_t in_dims[4] = { 1, 1, 8, 8 }, out_dims[2] = { 1, CLASSES };
	int64_t fw_dims[2] = { CLASSES, 32 }, fb_dims[1] = { CLASSES };
	struct model_builder mb;
	char path[600];
	Onnx__NodeProto *node;
	uint8_t *bytes;
	size_t size;
	int status;

	mb_init(&mb, 13);
	mb_input(&mb, "image", ENPU_RT_FLOAT, 4, in_dims);
	add_conv(&mb, &n->c1, "conv1", "image", "relu1");
	add_conv(&mb, &n->c2, "conv2", "relu1", "relu2");
	add_conv(&mb, &n->c3, "conv3", "relu2", "relu3");
	mb_node_name(&mb, mb_node(&mb, "Add", "relu2,relu3", "residual"),
		     "residual");
	mb_node_name(&mb, mb_node(&mb, "GlobalAveragePool", "residual",
				  "pooled"), "pool");
	mb_node_name(&mb, mb_node(&mb, "Flatten", "pooled", "features"),
		     "flatten");
	mb_initializer(&mb, "fc.weight", ENPU_RT_FLOAT, 2, fw_dims, n->fw.w,
		       n->fw.n * 4);
	mb_initializer(&mb, "fc.bias", ENPU_RT_FLOAT, 1, fb_dims, n->fb.w,
		       n->fb.n * 4);
	node = mb_node(&mb, "Gemm", "features,fc.weight,fc.bias", "logits");
	mb_node_name(&mb, node, "fc");
	mb_attr_int(&mb, node, "transB", 1);
	node = mb_node(&mb, "Softmax", "logits", "probabilities");
	mb_node_name(&mb, node, "softmax");
	mb_attr_int(&mb, node, "axis", 1);
	mb_output_typed(&mb, "probabilities", ENPU_RT_FLOAT, 2, out_dims);
	bytes = mb_pack(&mb, &size);
	snprintf(path, sizeof(path), "%s/digits-fp32.onnx", dir);
	status = write_bytes(path, bytes, size);
	mb_free(&mb);
	return status;
}

/* One TensorProto "image" float [1,1,8,8] per calibration sample. */
static int write_calibration(const struct dataset *d, const size_t *train,
			     size_t count, const char *dir)
{
	char path[700];

	snprintf(path, sizeof(path), "%s/calib", dir);
	if (mkdir(path, 0755) && errno != EEXIST)
		return -1;
	for (size_t i = 0; i < count; i++) {
		Onnx__TensorProto t = ONNX__TENSOR_PROTO__INIT;
		int64_t dims[4] = { 1, 1, 8, 8 };
		uint8_t *buf;
		size_t size;
		int status;

		t.name = "image";
		t.has_data_type = 1;
		t.data_type = ENPU_RT_FLOAT;
		t.n_dims = 4;
		t.dims = dims;
		t.has_raw_data = 1;
		t.raw_data.data = (uint8_t *)d->x[train[i]];
		t.raw_data.len = PIXELS * sizeof(float);
		size = onnx__tensor_proto__get_packed_size(&t);
		buf = malloc(size);
		if (!buf)
			return -1;
		onnx__tensor_proto__pack(&t, buf);
		snprintf(path, sizeof(path), "%s/calib/%03zu", dir, i);
		mkdir(path, 0755);
		snprintf(path, sizeof(path), "%s/calib/%03zu/input_0.pb", dir,
			 i);
		status = write_bytes(path, buf, size);
		free(buf);
		if (status)
			return -1;
	}
	return 0;
}

/*
 * "ENPUDIGT", u32 count, u32 pixels (64), then per sample 64 floats
 * (pixels / 16, the model's input) and one label byte.
 */
static int write_test(const struct dataset *d, const size_t *test,
		      size_t count, const char *dir)
{
	char path[600];
	uint32_t header[2] = { (uint32_t)count, PIXELS };
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/digits-test.bin", dir);
	f = fopen(path, "wb");
	if (!f)
		return -1;
	ok = fwrite("ENPUDIGT", 1, 8, f) == 8 &&
	     fwrite(header, sizeof(header), 1, f) == 1;
	for (size_t i = 0; ok && i < count; i++)
		ok = fwrite(d->x[test[i]], sizeof(float), PIXELS, f) == PIXELS &&
		     fwrite(&d->y[test[i]], 1, 1, f) == 1;
	ok = !fclose(f) && ok;
	return ok ? 0 : -1;
}

int main(int argc, char **argv)
{
	static struct dataset d;
	static size_t train[SAMPLES_MAX], test[SAMPLES_MAX];
	struct net n;
	struct trace t;
	size_t n_train = 0, n_test = 0;
	int epochs = 24, step = 0;

	if (argc < 3 || (argc == 5 && strcmp(argv[3], "--epochs")) ||
	    (argc != 3 && argc != 5)) {
		fprintf(stderr, "usage: digits-train DIGITS.csv[.gz] DIR "
			"[--epochs N]\n");
		return 2;
	}
	if (argc == 5)
		epochs = atoi(argv[4]);
	if (read_digits(argv[1], &d)) {
		fprintf(stderr, "digits-train: %s: no digits data (run "
			"tools/deps.sh demo)\n", argv[1]);
		return 1;
	}
	if (mkdir(argv[2], 0755) && errno != EEXIST) {
		perror(argv[2]);
		return 1;
	}
	for (size_t i = 0; i < d.n; i++) {
		if (i % 5 == 4)
			test[n_test++] = i;
		else
			train[n_train++] = i;
	}
	if (conv_init(&n.c1, 1, 16, 1, 8) || conv_init(&n.c2, 16, 32, 2, 8) ||
	    conv_init(&n.c3, 32, 32, 1, 4) ||
	    param_init(&n.fw, CLASSES * 32, sqrt(1.0 / 32)) ||
	    param_init(&n.fb, CLASSES, 0)) {
		fprintf(stderr, "digits-train: out of memory\n");
		return 1;
	}
	for (int e = 0; e < epochs; e++) {
		double loss = 0, lr = 0.003 * (e < epochs * 2 / 3 ? 1 : 0.3);
		size_t correct = 0;

		/* A fresh order every epoch (Fisher-Yates on the indices). */
		for (size_t i = n_train - 1; i > 0; i--) {
			size_t j = (size_t)(uniform() * (double)(i + 1)), s;

			s = train[i];
			train[i] = train[j];
			train[j] = s;
		}
		for (size_t i = 0; i < n_train; i++) {
			forward(&n, d.x[train[i]], &t);
			loss -= log(t.p[d.y[train[i]]] + 1e-12);
			correct += argmax(t.p) == d.y[train[i]];
			backward(&n, &t, d.y[train[i]]);
			if ((i + 1) % BATCH == 0 || i + 1 == n_train) {
				int batch = (i + 1) % BATCH ? (int)((i + 1) % BATCH) :
					    BATCH;

				step++;
				adam(&n.c1.w, step, lr, batch);
				adam(&n.c1.b, step, lr, batch);
				adam(&n.c2.w, step, lr, batch);
				adam(&n.c2.b, step, lr, batch);
				adam(&n.c3.w, step, lr, batch);
				adam(&n.c3.b, step, lr, batch);
				adam(&n.fw, step, lr, batch);
				adam(&n.fb, step, lr, batch);
			}
		}
		if (e % 5 == 4 || e == epochs - 1)
			printf("epoch %2d: loss %.4f, train accuracy %.2f%%\n",
			       e + 1, loss / (double)n_train,
			       100.0 * (double)correct / (double)n_train);
	}
	{
		size_t correct = 0;

		for (size_t i = 0; i < n_test; i++) {
			forward(&n, d.x[test[i]], &t);
			correct += argmax(t.p) == d.y[test[i]];
		}
		printf("held-out accuracy (float, this trainer): %zu/%zu = "
		       "%.2f%%\n", correct, n_test,
		       100.0 * (double)correct / (double)n_test);
	}
	if (write_model(&n, argv[2]) ||
	    write_calibration(&d, train, CALIB_SAMPLES, argv[2]) ||
	    write_test(&d, test, n_test, argv[2])) {
		fprintf(stderr, "digits-train: writing into %s failed\n",
			argv[2]);
		return 1;
	}
	printf("wrote %s/digits-fp32.onnx, %d calibration samples, %zu "
	       "held-out samples\n", argv[2], CALIB_SAMPLES, n_test);
	return 0;
}
