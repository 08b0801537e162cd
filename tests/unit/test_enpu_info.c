// SPDX-License-Identifier: MIT
/* enpu-info: its unit formatting and its command line without a device. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <enpu/enpu.h>

#include "enpu_info_format.h"
#include "unit_test.h"

/* Set by the Makefile: the enpu-info binary under test. */
#ifndef ENPU_INFO_BINARY
#error "ENPU_INFO_BINARY must name the enpu-info binary"
#endif

static int clock_in_whole_mhz(void)
{
	char text[32];

	CHECK(enpu_info_format_clock(200000, sizeof(text), text) == 0);
	CHECK(strcmp(text, "200 MHz") == 0);
	CHECK(enpu_info_format_clock(0, sizeof(text), text) == 0);
	CHECK(strcmp(text, "0 MHz") == 0);
	return 0;
}

static int clock_keeps_khz_precision(void)
{
	char text[32];

	CHECK(enpu_info_format_clock(266667, sizeof(text), text) == 0);
	CHECK(strcmp(text, "266.667 MHz") == 0);
	CHECK(enpu_info_format_clock(1005, sizeof(text), text) == 0);
	CHECK(strcmp(text, "1.005 MHz") == 0);
	return 0;
}

static int temperature_in_tenths_of_celsius(void)
{
	char text[32];

	CHECK(enpu_info_format_temperature(41500, sizeof(text), text) == 0);
	CHECK(strcmp(text, "41.5 °C") == 0);
	CHECK(enpu_info_format_temperature(35000, sizeof(text), text) == 0);
	CHECK(strcmp(text, "35.0 °C") == 0);
	CHECK(enpu_info_format_temperature(104999, sizeof(text), text) == 0);
	CHECK(strcmp(text, "105.0 °C") == 0);
	return 0;
}

static int negative_temperature_keeps_its_sign(void)
{
	char text[32];

	CHECK(enpu_info_format_temperature(-2250, sizeof(text), text) == 0);
	CHECK(strcmp(text, "-2.3 °C") == 0);
	CHECK(enpu_info_format_temperature(-40, sizeof(text), text) == 0);
	CHECK(strcmp(text, "0.0 °C") == 0);
	return 0;
}

static int bytes_in_exact_binary_units(void)
{
	char text[64];

	CHECK(enpu_info_format_bytes(2u << 20, sizeof(text), text) == 0);
	CHECK(strcmp(text, "2 MiB (2097152 bytes)") == 0);
	CHECK(enpu_info_format_bytes(1536 * 1024, sizeof(text), text) == 0);
	CHECK(strcmp(text, "1536 KiB (1572864 bytes)") == 0);
	CHECK(enpu_info_format_bytes(1000, sizeof(text), text) == 0);
	CHECK(strcmp(text, "1000 bytes") == 0);
	CHECK(enpu_info_format_bytes(0, sizeof(text), text) == 0);
	CHECK(strcmp(text, "0 bytes") == 0);
	return 0;
}

static int formats_report_a_short_buffer(void)
{
	char text[4];

	CHECK(enpu_info_format_clock(1000000, sizeof(text), text) == -ENOSPC);
	CHECK(enpu_info_format_temperature(1000, 0, text) == -EINVAL);
	CHECK(enpu_info_format_bytes(1024, sizeof(text), NULL) == -EINVAL);
	return 0;
}

/*
 * Runs enpu-info with arguments, stdout to /dev/null, stderr captured.
 * Returns the exit status, -1 if it did not exit normally.
 */
static int run_enpu_info(char *const arguments[], char *stderr_text,
			 size_t size)
{
	int pipe_fds[2], status;
	size_t used = 0;
	ssize_t got;
	pid_t pid;

	if (pipe(pipe_fds))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (!freopen("/dev/null", "w", stdout))
			_exit(127);
		dup2(pipe_fds[1], STDERR_FILENO);
		close(pipe_fds[0]);
		close(pipe_fds[1]);
		execv(ENPU_INFO_BINARY, arguments);
		_exit(127);
	}
	close(pipe_fds[1]);
	while (used + 1 < size &&
	       (got = read(pipe_fds[0], stderr_text + used,
			   size - 1 - used)) > 0)
		used += (size_t)got;
	stderr_text[used] = '\0';
	close(pipe_fds[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static int help_exits_zero(void)
{
	char *arguments[] = { "enpu-info", "--help", NULL };
	char text[512];

	CHECK(run_enpu_info(arguments, text, sizeof(text)) == 0);
	return 0;
}

static int bad_device_index_is_a_usage_error(void)
{
	char *arguments[] = { "enpu-info", "-d", "first", NULL };
	char text[512];

	CHECK(run_enpu_info(arguments, text, sizeof(text)) == 2);
	CHECK(strstr(text, "'first'") != NULL);
	return 0;
}

static int index_and_path_together_is_a_usage_error(void)
{
	char *arguments[] = { "enpu-info", "-d", "0", "/dev/null", NULL };
	char text[1024];

	CHECK(run_enpu_info(arguments, text, sizeof(text)) == 2);
	return 0;
}

static int non_enpu_path_exits_one_naming_it(void)
{
	char *arguments[] = { "enpu-info", "/dev/null", NULL };
	char text[512];

	CHECK(run_enpu_info(arguments, text, sizeof(text)) == 1);
	CHECK(strstr(text, "enpu-info: /dev/null") != NULL);
	return 0;
}

static int no_device_message_names_the_module(void)
{
	char *arguments[] = { "enpu-info", NULL };
	char text[512];
	size_t count = 0;
	enpu_device_list *list;

	/* Only meaningful on a host without an ENPU, which is the norm. */
	CHECK(enpu_device_list_create(&list, NULL) == 0);
	enpu_device_list_count(list, &count);
	enpu_device_list_destroy(list);
	if (count)
		return 0;
	CHECK(run_enpu_info(arguments, text, sizeof(text)) == 1);
	CHECK(strcmp(text, "enpu-info: no ENPU device found (is the enpu module loaded?)\n") == 0);
	return 0;
}

UNIT_TEST_SUITE(enpu_info,
	UNIT_TEST(clock_in_whole_mhz),
	UNIT_TEST(clock_keeps_khz_precision),
	UNIT_TEST(temperature_in_tenths_of_celsius),
	UNIT_TEST(negative_temperature_keeps_its_sign),
	UNIT_TEST(bytes_in_exact_binary_units),
	UNIT_TEST(formats_report_a_short_buffer),
	UNIT_TEST(help_exits_zero),
	UNIT_TEST(bad_device_index_is_a_usage_error),
	UNIT_TEST(index_and_path_together_is_a_usage_error),
	UNIT_TEST(non_enpu_path_exits_one_naming_it),
	UNIT_TEST(no_device_message_names_the_module));
