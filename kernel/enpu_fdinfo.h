/* SPDX-License-Identifier: GPL-2.0 */
/* Per-file usage statistics in /proc/<pid>/fdinfo (drm-usage-stats). */
#ifndef ENPU_FDINFO_H
#define ENPU_FDINFO_H

#include "enpu_conftest.h"

struct drm_file;
struct drm_printer;
struct enpu_file;
struct file;
struct seq_file;

void enpu_fdinfo_file_init(struct enpu_file *efile);
void enpu_fdinfo_show(struct drm_printer *p, struct drm_file *file);

#ifdef ENPU_HAVE_DRM_SHOW_FDINFO
/* The DRM core prints the common keys, then calls drm_driver.show_fdinfo. */
#define ENPU_FDINFO_FOPS_SHOW	drm_show_fdinfo
#define ENPU_FDINFO_DRIVER_SHOW	enpu_fdinfo_show
#else
void enpu_fdinfo_show_file(struct seq_file *m, struct file *f);
#define ENPU_FDINFO_FOPS_SHOW	enpu_fdinfo_show_file
#endif

#endif /* ENPU_FDINFO_H */
