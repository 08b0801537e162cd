// SPDX-License-Identifier: MIT
/*
 * The on-disk cache of compiled partitions: one file per partition,
 * <cache dir>/npu-<key hash>.bin, holding its key in full (so a hash
 * collision is a miss, not a wrong stream), the command stream, the
 * constants, the arena size and the seams. The key is everything the
 * compiled form depends on: the model (a hash of its bytes and of the
 * session options that change the graph), the partition (its nodes and
 * seams), the driver's version string, the firmware and hardware
 * interface versions, the device's timing parameters and this
 * compiler's version. Files are written to a temporary name and renamed,
 * so a reader never sees half a file; any file that does not parse is a
 * miss and is overwritten by the next store.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "npu.h"

/* Bump whenever the compiler's output for the same key changes. */
#define NPU_COMPILER_VERSION 1
#define CACHE_MAGIC "ENPUNPU1"

struct key {
	char *text;
	size_t size, cap;
};

static void key_add(struct key *k, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void key_add(struct key *k, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!k->text && k->cap)
		return;		/* a failed allocation: stays empty */
	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(k->text ? k->text + k->size : NULL,
			      k->text ? k->cap - k->size : 0, fmt, ap);
		va_end(ap);
		if (n < 0)
			return;
		if (k->text && k->size + (size_t)n < k->cap) {
			k->size += (size_t)n;
			return;
		}
		{
			size_t cap = k->cap ? k->cap * 2 : 4096;
			char *grown;

			while (cap <= k->size + (size_t)n)
				cap *= 2;
			grown = realloc(k->text, cap);
			if (!grown) {
				free(k->text);
				k->text = NULL;
				k->cap = 1;
				return;
			}
			k->text = grown;
			k->cap = cap;
		}
	}
}

static void make_key(const struct npu_backend *b, const struct rt_graph *g,
		     const struct rt_partition *p, struct key *k)
{
	const struct enpu_device_params *d = &b->params;

	memset(k, 0, sizeof(*k));
	key_add(k, "enpu npu compiler %d\nmodel %016llx\n",
		NPU_COMPILER_VERSION, (unsigned long long)b->model_hash);
	key_add(k, "driver %s\nfirmware %llx api %llx hardware %llx\n",
		b->driver_version, (unsigned long long)d->fw_version,
		(unsigned long long)d->fw_api_version,
		(unsigned long long)d->hw_version);
	key_add(k, "clock %llu macs %llu sram %llu bound %u point %u\n",
		(unsigned long long)d->clock_max_khz,
		(unsigned long long)d->macs_per_cycle,
		(unsigned long long)d->sram_size, b->bound_ns,
		NPU_POINT_CYCLES);
	for (size_t i = 0; i < p->node_count; i++) {
		const struct rt_node *n = &g->nodes[p->nodes[i]];

		key_add(k, "node %zu %s %s\n", p->nodes[i], rt_node_label(n),
			n->op_type);
	}
	for (size_t i = 0; i < p->input_count; i++)
		key_add(k, "in %d %s\n", p->inputs[i],
			g->values[p->inputs[i]].name);
	for (size_t i = 0; i < p->output_count; i++)
		key_add(k, "out %d %s\n", p->outputs[i],
			g->values[p->outputs[i]].name);
}

static uint64_t fnv1a(const void *data, size_t size)
{
	const uint8_t *p = data;
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < size; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

static void file_name(const struct npu_backend *b, const struct key *k,
		      char *path, size_t size)
{
	snprintf(path, size, "%s/npu-%016llx.bin", b->cache_dir,
		 (unsigned long long)fnv1a(k->text, k->size));
}

struct header {
	char magic[8];
	uint32_t key_size, stream_size;
	uint64_t consts_size, arena_size, cycles, longest_cycles;
	uint32_t boundary_count, command_count, over_budget, reserved;
};

struct boundary_record {
	int32_t value, output;
	uint64_t bytes;
};

int npu_cache_load(struct npu_backend *b, const struct rt_graph *g,
		   const struct rt_partition *p, struct npu_compiled *c)
{
	struct key k;
	struct header h;
	char path[700], *stored = NULL;
	FILE *f;
	int status = -1;

	make_key(b, g, p, &k);
	if (!k.text)
		return -1;
	file_name(b, &k, path, sizeof(path));
	f = fopen(path, "rb");
	if (!f)
		goto out;
	if (fread(&h, sizeof(h), 1, f) != 1 ||
	    memcmp(h.magic, CACHE_MAGIC, 8) || h.key_size != k.size ||
	    h.stream_size > ENPU_CMD_MAX_STREAM ||
	    h.consts_size > NPU_TENSOR_MAX_BYTES ||
	    h.arena_size > NPU_TENSOR_MAX_BYTES ||
	    h.boundary_count != p->input_count + p->output_count)
		goto out;
	stored = malloc(k.size + 1);
	c->stream = malloc(h.stream_size + 1);
	c->consts = malloc(h.consts_size + 1);
	c->boundaries = calloc(h.boundary_count + 1, sizeof(*c->boundaries));
	if (!stored || !c->stream || !c->consts || !c->boundaries ||
	    fread(stored, 1, k.size, f) != k.size ||
	    memcmp(stored, k.text, k.size))
		goto out;
	for (uint32_t i = 0; i < h.boundary_count; i++) {
		struct boundary_record r;

		if (fread(&r, sizeof(r), 1, f) != 1)
			goto out;
		c->boundaries[i].value = r.value;
		c->boundaries[i].output = r.output;
		c->boundaries[i].bytes = r.bytes;
	}
	if (fread(c->stream, 1, h.stream_size, f) != h.stream_size ||
	    fread(c->consts, 1, h.consts_size, f) != h.consts_size)
		goto out;
	c->stream_size = h.stream_size;
	c->consts_size = h.consts_size;
	c->arena_size = h.arena_size;
	c->boundary_count = h.boundary_count;
	c->command_count = h.command_count;
	c->cycles = h.cycles;
	c->longest_cycles = h.longest_cycles;
	c->over_budget = h.over_budget;
	status = 0;
out:
	if (f)
		fclose(f);
	if (status)
		npu_compiled_free_form(c);
	free(stored);
	free(k.text);
	return status;
}

/* mkdir -p; 0 when the directory exists afterwards. */
static int make_dirs(const char *dir)
{
	char path[512];

	snprintf(path, sizeof(path), "%s", dir);
	for (char *s = path + 1; *s; s++)
		if (*s == '/') {
			*s = 0;
			if (mkdir(path, 0755) && errno != EEXIST)
				return -1;
			*s = '/';
		}
	return mkdir(path, 0755) && errno != EEXIST ? -1 : 0;
}

void npu_cache_store(struct npu_backend *b, const struct rt_graph *g,
		     const struct rt_partition *p,
		     const struct npu_compiled *c)
{
	struct header h = { .magic = CACHE_MAGIC };
	char path[700], tmp[760];
	struct key k;
	FILE *f;
	int ok;

	make_key(b, g, p, &k);
	if (!k.text || make_dirs(b->cache_dir))
		goto out;
	file_name(b, &k, path, sizeof(path));
	snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", path, (long)getpid());
	f = fopen(tmp, "wb");
	if (!f)
		goto out;
	h.key_size = (uint32_t)k.size;
	h.stream_size = c->stream_size;
	h.consts_size = c->consts_size;
	h.arena_size = c->arena_size;
	h.cycles = c->cycles;
	h.longest_cycles = c->longest_cycles;
	h.boundary_count = c->boundary_count;
	h.command_count = c->command_count;
	h.over_budget = c->over_budget;
	ok = fwrite(&h, sizeof(h), 1, f) == 1 &&
	     fwrite(k.text, 1, k.size, f) == k.size;
	for (uint32_t i = 0; ok && i < c->boundary_count; i++) {
		struct boundary_record r = {
			c->boundaries[i].value, c->boundaries[i].output,
			c->boundaries[i].bytes,
		};

		ok = fwrite(&r, sizeof(r), 1, f) == 1;
	}
	ok = ok && fwrite(c->stream, 1, c->stream_size, f) == c->stream_size &&
	     fwrite(c->consts, 1, c->consts_size, f) == c->consts_size;
	ok = !fclose(f) && ok;
	if (!ok || rename(tmp, path))
		unlink(tmp);
out:
	free(k.text);
}
