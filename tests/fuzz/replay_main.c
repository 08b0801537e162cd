// SPDX-License-Identifier: MIT
/*
 * Runs the fuzz target without libFuzzer, so `make check` builds it with
 * the normal compiler and replays a corpus: every model.onnx under the
 * given directories (one level down, as in libonnx-testdata) or given
 * files, plus deterministic mutations of each (truncations and byte
 * flips). Passing means nothing crashed.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MUTATIONS 24

static uint64_t next_random(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

static int replay_file(const char *path, size_t *inputs)
{
	FILE *f = fopen(path, "rb");
	uint8_t *data, *copy;
	long size;
	uint64_t state = 0x9e3779b97f4a7c15ull;

	if (!f)
		return 0;
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fseek(f, 0, SEEK_SET);
	if (size < 0 || size > (64 << 20)) {
		fclose(f);
		return 0;
	}
	data = malloc((size_t)size + 1);
	copy = malloc((size_t)size + 1);
	if (!data || !copy || fread(data, 1, (size_t)size, f) !=
			      (size_t)size) {
		fclose(f);
		free(data);
		free(copy);
		return -1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(data, (size_t)size);
	(*inputs)++;
	for (int m = 0; m < MUTATIONS && size > 0; m++) {
		size_t len = (size_t)size;

		memcpy(copy, data, len);
		if (m % 3 == 0) {
			len = next_random(&state) % len;
		} else {
			for (int flips = 0; flips < 1 + m % 4; flips++)
				copy[next_random(&state) % len] ^=
					(uint8_t)(1u << (next_random(&state) % 8));
		}
		LLVMFuzzerTestOneInput(copy, len);
		(*inputs)++;
	}
	free(data);
	free(copy);
	return 0;
}

int main(int argc, char **argv)
{
	size_t inputs = 0, files = 0;

	for (int i = 1; i < argc; i++) {
		struct stat st;
		DIR *d;
		struct dirent *e;

		if (stat(argv[i], &st))
			continue;
		if (!S_ISDIR(st.st_mode)) {
			files++;
			replay_file(argv[i], &inputs);
			continue;
		}
		d = opendir(argv[i]);
		while (d && (e = readdir(d))) {
			char path[4096];

			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s/model.onnx",
				 argv[i], e->d_name);
			if (!stat(path, &st)) {
				files++;
				replay_file(path, &inputs);
			}
		}
		if (d)
			closedir(d);
	}
	printf("fuzz-replay: %zu inputs from %zu files, no crash\n", inputs,
	       files);
	return files ? 0 : 1;
}
