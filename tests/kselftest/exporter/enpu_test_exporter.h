/* SPDX-License-Identifier: MIT */
/*
 * The test exporter's ioctls (enpu_test_exporter.c): a misc device,
 * /dev/enpu_test_exporter, that exports dma-bufs able to move, as a
 * discrete GPU's VRAM buffers can and no exporter in the test VM
 * otherwise does, so that a dynamic importer can be tested.
 */
#ifndef ENPU_TEST_EXPORTER_H
#define ENPU_TEST_EXPORTER_H

#include <linux/ioctl.h>
#include <linux/types.h>

/**
 * struct enpu_test_export - ENPU_TEST_EXPORT
 * @size: in, bytes (page multiple, at most 16 MiB).
 * @fill: in, the byte every page starts with.
 * @fd: out, the dma-buf.
 */
struct enpu_test_export {
	__u64 size;
	__u32 fill;
	__s32 fd;
};

/**
 * struct enpu_test_buf - ENPU_TEST_MOVE, ENPU_TEST_STATE
 * @fd: in, a dma-buf from ENPU_TEST_EXPORT.
 * @pins: out, importers' pins now (mappings of a dynamic importer with
 *	CONFIG_DMABUF_MOVE_NOTIFY off, or attachments of a static one).
 * @maps: out, mappings now.
 * @moves: out, completed moves.
 * @first: out, the first 8 bytes of the backing pages now.
 */
struct enpu_test_buf {
	__s32 fd;
	__u32 pins;
	__u32 maps;
	__u32 moves;
	__u64 first;
};

#define ENPU_TEST_EXPORT	_IOWR('E', 0x40, struct enpu_test_export)
/*
 * Moves the buffer to new pages, copying its bytes, and calls
 * dma_buf_move_notify(). -EBUSY if it is pinned or mapped, or a fence in
 * its reservation has not signalled (the move never waits).
 */
#define ENPU_TEST_MOVE		_IOWR('E', 0x41, struct enpu_test_buf)
#define ENPU_TEST_STATE		_IOWR('E', 0x42, struct enpu_test_buf)

#endif /* ENPU_TEST_EXPORTER_H */
