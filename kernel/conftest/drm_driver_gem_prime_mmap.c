// SPDX-License-Identifier: GPL-2.0
/*
 * Probe: struct drm_driver still has .gem_prime_mmap, which 6.1 needs set
 * to drm_gem_prime_mmap for dma-buf mmap; later kernels route dma-buf mmap
 * through the GEM object's own mmap and removed the hook.
 */
#include <drm/drm_drv.h>
#include <drm/drm_prime.h>

const struct drm_driver enpu_conftest_driver = {
	.gem_prime_mmap = drm_gem_prime_mmap,
};
