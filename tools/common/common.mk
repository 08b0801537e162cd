# tools/common: small C helpers more than one program needs (README.md).
# Compiled into each user as a source file: they are too small for a library.

TOOLS_COMMON_DIR := tools/common
TOOLS_COMMON_SOURCES := $(TOOLS_COMMON_DIR)/drm_card.c \
	$(TOOLS_COMMON_DIR)/vnpu_relay.c
TOOLS_COMMON_HEADERS := $(TOOLS_COMMON_DIR)/drm_card.h \
	$(TOOLS_COMMON_DIR)/vnpu_relay.h
TOOLS_COMMON_CFLAGS := -I$(TOOLS_COMMON_DIR)
