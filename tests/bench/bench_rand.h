/* SPDX-License-Identifier: GPL-2.0 */
/* The benches' random numbers: xorshift64*, one fixed seed, so runs are comparable. */
#ifndef AIOSCOPE_BENCH_RAND_H
#define AIOSCOPE_BENCH_RAND_H

static unsigned long long rng = 0x243F6A8885A308D3ULL;

static inline unsigned long long xrand(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

#endif
