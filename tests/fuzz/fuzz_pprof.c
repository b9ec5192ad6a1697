// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_pprof: pprof__read() on any bytes, gzip'd or not: a pprof profile
 * from anywhere (ids that point nowhere, string indexes out of range,
 * values that do not match the sample types, gzip that inflates far). It
 * must never crash, leak or misbehave (libFuzzer, ASan, UBSan: make fuzz).
 */
#include <stdint.h>

#include "profile/pprof.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct profile *p = profile__new();
	struct input_stats st = {0};

	if (!p)
		return 0;
	pprof__read(data, size, p, &st);
	profile__free(p);
	return 0;
}
