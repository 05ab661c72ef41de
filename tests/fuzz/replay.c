/* replay.c - run a fuzz target's entry point on files, without libFuzzer:
   the seed corpus and every input that once crashed (tests/fuzz/regress/)
   are replayed by 'make test' under the normal and sanitizer builds.
   Replaying nothing is an error: a missing corpus must not pass. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
	int n = 0;

	if (argc < 2) {
		fprintf(stderr, "replay: no input files: nothing replayed\n");
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		uint8_t *buf;
		long len;

		if (!f) {
			perror(argv[i]);
			return 1;
		}
		if (fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 ||
		    fseek(f, 0, SEEK_SET) != 0) {
			fclose(f);
			return 1;
		}
		buf = malloc((size_t)len + 1);
		if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len) {
			free(buf);
			fclose(f);
			return 1;
		}
		fclose(f);
		LLVMFuzzerTestOneInput(buf, (size_t)len);
		free(buf);
		n++;
	}
	printf("replayed %d inputs\n", n);
	return 0;
}
