// SPDX-License-Identifier: GPL-2.0
/* Host-side diagnostic log (--log, default stderr), not the firmware log. */
#include <stdarg.h>

#include "vnpu.h"

void vnpu_log(struct vnpu *v, const char *fmt, ...)
{
	uint64_t ms = (monotonic_ns() - v->start_ns) / 1000000u;
	va_list ap;

	fprintf(v->log, "[%6llu.%03llu] vnpu: ", (unsigned long long)(ms / 1000),
		(unsigned long long)(ms % 1000));
	va_start(ap, fmt);
	vfprintf(v->log, fmt, ap);
	va_end(ap);
	fputc('\n', v->log);
	fflush(v->log);
}
