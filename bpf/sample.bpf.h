/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sample.bpf.h: sample mode, a timer (or cycles) perf event on every CPU.
 */
#ifndef FLAMETOP_SAMPLE_BPF_H
#define FLAMETOP_SAMPLE_BPF_H

SEC("perf_event")
int on_sample(struct bpf_perf_event_data *ctx)
{
	struct where at = {
		.ip = PT_REGS_IP(&ctx->regs),
		.sp = PT_REGS_SP(&ctx->regs),
	};

	/* On x86-64 and arm64 the kernel lives in the upper half of the address space. */
	at.in_kernel = (long)at.ip < 0;
	if (!at.in_kernel)
		at.user = (struct user_regs){ .ip = at.ip, .sp = at.sp, .fp = PT_REGS_FP(&ctx->regs),
					      .compat = REGS_COMPAT(&ctx->regs) };
	return record_event(ctx, 0, &at, false);
}

#endif
