/* SPDX-License-Identifier: GPL-2.0 */
/* Firmware: load, validate, upload and boot. */
#ifndef ENPU_FW_LOADER_H
#define ENPU_FW_LOADER_H

struct enpu_device;

int enpu_fw_boot(struct enpu_device *edev);

#endif /* ENPU_FW_LOADER_H */
