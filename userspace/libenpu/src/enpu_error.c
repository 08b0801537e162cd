// SPDX-License-Identifier: MIT
#include <stdarg.h>
#include <stdio.h>

#include "enpu_internal.h"

static void format_message(char *buffer, const char *format, va_list args)
{
	/* Truncation is acceptable: the message is for humans. */
	vsnprintf(buffer, ENPU_ERROR_MESSAGE_SIZE, format, args);
}

int enpu_fail(struct enpu_error *error, int status, const char *format, ...)
{
	va_list args;

	if (!error)
		return status;
	va_start(args, format);
	format_message(error->message, format, args);
	va_end(args);
	return status;
}

int enpu_device_fail(enpu_device *device, int status, const char *format, ...)
{
	va_list args;

	va_start(args, format);
	format_message(device->last_error, format, args);
	va_end(args);
	return status;
}
