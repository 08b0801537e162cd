/* SPDX-License-Identifier: MIT */
/*
 * Finding another DRM driver's card node by driver name (vgem stands in
 * for a camera or display exporter in the tools, the benchmarks and the
 * kselftests). libenpu finds ENPU's own nodes; this is for everyone else's.
 */
#ifndef ENPU_TOOLS_DRM_CARD_H
#define ENPU_TOOLS_DRM_CARD_H

/*
 * Opens (O_RDWR | O_CLOEXEC) the first /dev/dri/card* node whose driver
 * is @driver. Returns the fd, -ENODEV when no node has that driver, or
 * another -errno when /dev/dri cannot be read. Loading the module is the
 * caller's business: their policies differ.
 */
int drm_card_open(const char *driver);

#endif
