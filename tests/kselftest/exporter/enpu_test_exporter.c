// SPDX-License-Identifier: GPL-2.0
/*
 * enpu_test_exporter.ko: a dma-buf exporter whose buffers can move, for
 * the kselftests only (tests/kselftest/enpu_dynamic_import_test.c). No
 * exporter available in the test VM (vgem, udmabuf, the shmem helpers)
 * ever moves a buffer; a discrete GPU's driver does. This one implements
 * the dynamic-exporter side of the dma-buf protocol and nothing else:
 * pin/unpin, map/unmap of its current pages, and a move (to fresh pages,
 * contents copied) under the reservation lock that refuses while pinned
 * or while a fence in the reservation is unsignalled, followed by
 * dma_buf_move_notify().
 *
 * Locking: everything about a buffer is under its dma_resv lock, as the
 * protocol requires for map, unmap, pin, unpin and move_notify.
 */
#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/dma-resv.h>
#include <linux/file.h>
#include <linux/highmem.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "enpu_test_exporter.h"

#define TEST_EXPORTER_MAX_SIZE	(16u << 20)

struct test_buf {
	struct page **pages;
	unsigned int count;
	unsigned int pins;
	unsigned int maps;
	unsigned int moves;
};

static int test_buf_pin(struct dma_buf_attachment *attach)
{
	struct test_buf *buf = attach->dmabuf->priv;

	dma_resv_assert_held(attach->dmabuf->resv);
	buf->pins++;
	return 0;
}

static void test_buf_unpin(struct dma_buf_attachment *attach)
{
	struct test_buf *buf = attach->dmabuf->priv;

	dma_resv_assert_held(attach->dmabuf->resv);
	buf->pins--;
}

static struct sg_table *test_buf_map(struct dma_buf_attachment *attach,
				     enum dma_data_direction dir)
{
	struct test_buf *buf = attach->dmabuf->priv;
	struct sg_table *sgt;
	int ret;

	dma_resv_assert_held(attach->dmabuf->resv);
	sgt = kzalloc(sizeof(*sgt), GFP_KERNEL);
	if (!sgt)
		return ERR_PTR(-ENOMEM);
	ret = sg_alloc_table_from_pages(sgt, buf->pages, buf->count, 0,
					(size_t)buf->count << PAGE_SHIFT,
					GFP_KERNEL);
	if (!ret)
		ret = dma_map_sgtable(attach->dev, sgt, dir, 0);
	if (ret) {
		sg_free_table(sgt);
		kfree(sgt);
		return ERR_PTR(ret);
	}
	buf->maps++;
	return sgt;
}

static void test_buf_unmap(struct dma_buf_attachment *attach,
			   struct sg_table *sgt, enum dma_data_direction dir)
{
	struct test_buf *buf = attach->dmabuf->priv;

	dma_resv_assert_held(attach->dmabuf->resv);
	dma_unmap_sgtable(attach->dev, sgt, dir, 0);
	sg_free_table(sgt);
	kfree(sgt);
	buf->maps--;
}

static void test_buf_free_pages(struct page **pages, unsigned int count)
{
	unsigned int i;

	for (i = 0; i < count; i++)
		if (pages[i])
			__free_page(pages[i]);
	kvfree(pages);
}

static void test_buf_release(struct dma_buf *dmabuf)
{
	struct test_buf *buf = dmabuf->priv;

	test_buf_free_pages(buf->pages, buf->count);
	kfree(buf);
}

static const struct dma_buf_ops test_buf_ops = {
	.pin = test_buf_pin,
	.unpin = test_buf_unpin,
	.map_dma_buf = test_buf_map,
	.unmap_dma_buf = test_buf_unmap,
	.release = test_buf_release,
};

static struct page **test_buf_alloc_pages(unsigned int count, u8 fill)
{
	struct page **pages = kvcalloc(count, sizeof(*pages), GFP_KERNEL);
	unsigned int i;

	if (!pages)
		return NULL;
	for (i = 0; i < count; i++) {
		pages[i] = alloc_page(GFP_KERNEL);
		if (!pages[i]) {
			test_buf_free_pages(pages, count);
			return NULL;
		}
		memset_page(pages[i], 0, fill, PAGE_SIZE);
	}
	return pages;
}

static int test_exporter_export(struct enpu_test_export __user *uarg)
{
	DEFINE_DMA_BUF_EXPORT_INFO(info);
	struct enpu_test_export args;
	struct dma_buf *dmabuf;
	struct test_buf *buf;
	int fd;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	if (!args.size || args.size > TEST_EXPORTER_MAX_SIZE ||
	    !PAGE_ALIGNED(args.size) || args.fill > 0xff)
		return -EINVAL;
	buf = kzalloc(sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	buf->count = args.size >> PAGE_SHIFT;
	buf->pages = test_buf_alloc_pages(buf->count, args.fill);
	if (!buf->pages) {
		kfree(buf);
		return -ENOMEM;
	}
	info.ops = &test_buf_ops;
	info.size = args.size;
	info.flags = O_RDWR;
	info.priv = buf;
	dmabuf = dma_buf_export(&info);
	if (IS_ERR(dmabuf)) {
		test_buf_free_pages(buf->pages, buf->count);
		kfree(buf);
		return PTR_ERR(dmabuf);
	}
	fd = dma_buf_fd(dmabuf, O_CLOEXEC);
	if (fd < 0) {
		dma_buf_put(dmabuf);
		return fd;
	}
	args.fd = fd;
	if (copy_to_user(uarg, &args, sizeof(args)))
		return -EFAULT;	/* the fd stays; closing it frees the buffer */
	return 0;
}

/* Looks up one of our dma-bufs; a reference the caller puts. */
static struct dma_buf *test_exporter_get(int fd)
{
	struct dma_buf *dmabuf = dma_buf_get(fd);

	if (IS_ERR(dmabuf))
		return dmabuf;
	if (dmabuf->ops != &test_buf_ops) {
		dma_buf_put(dmabuf);
		return ERR_PTR(-EINVAL);
	}
	return dmabuf;
}

/* With the reservation held: fresh pages, contents copied, then notify. */
static int test_buf_move_locked(struct dma_buf *dmabuf)
{
	struct test_buf *buf = dmabuf->priv;
	struct page **pages;
	unsigned int i;

	/*
	 * A real exporter would wait for the fences and let existing
	 * mappings drain; this one refuses, so a test sees at once that
	 * something still used the buffer.
	 */
	if (buf->pins || buf->maps ||
	    !dma_resv_test_signaled(dmabuf->resv, DMA_RESV_USAGE_BOOKKEEP))
		return -EBUSY;
	pages = test_buf_alloc_pages(buf->count, 0);
	if (!pages)
		return -ENOMEM;
	for (i = 0; i < buf->count; i++)
		copy_highpage(pages[i], buf->pages[i]);
	test_buf_free_pages(buf->pages, buf->count);
	buf->pages = pages;
	buf->moves++;
	dma_buf_move_notify(dmabuf);
	return 0;
}

static long test_exporter_ioctl(struct file *file, unsigned int cmd,
				unsigned long arg)
{
	void __user *uarg = (void __user *)arg;
	struct enpu_test_buf args;
	struct dma_buf *dmabuf;
	struct test_buf *buf;
	int ret = 0;

	if (cmd == ENPU_TEST_EXPORT)
		return test_exporter_export(uarg);
	if (cmd != ENPU_TEST_MOVE && cmd != ENPU_TEST_STATE)
		return -ENOTTY;
	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	dmabuf = test_exporter_get(args.fd);
	if (IS_ERR(dmabuf))
		return PTR_ERR(dmabuf);
	buf = dmabuf->priv;
	dma_resv_lock(dmabuf->resv, NULL);
	if (cmd == ENPU_TEST_MOVE)
		ret = test_buf_move_locked(dmabuf);
	args.pins = buf->pins;
	args.maps = buf->maps;
	args.moves = buf->moves;
	memcpy_from_page((char *)&args.first, buf->pages[0], 0,
			 sizeof(args.first));
	dma_resv_unlock(dmabuf->resv);
	dma_buf_put(dmabuf);
	/* The state goes back with -EBUSY too: it says who holds it. */
	if (copy_to_user(uarg, &args, sizeof(args)))
		ret = -EFAULT;
	return ret;
}

static const struct file_operations test_exporter_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = test_exporter_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

static struct miscdevice test_exporter_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "enpu_test_exporter",
	.fops = &test_exporter_fops,
	.mode = 0600,
};

module_misc_device(test_exporter_misc);

MODULE_DESCRIPTION("ENPU kselftests: a dma-buf exporter whose buffers move");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(DMA_BUF);
