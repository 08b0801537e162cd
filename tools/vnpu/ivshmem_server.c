// SPDX-License-Identifier: GPL-2.0
/*
 * The server half of QEMU's ivshmem protocol (what QEMU's ivshmem-doorbell
 * expects on its chardev socket). Every message is a little-endian int64,
 * optionally carrying one fd (SCM_RIGHTS). A new client receives:
 *   1. the protocol version, 0;
 *   2. its own peer id (1: the vnpu is peer 0, QEMU is the only client);
 *   3. -1 with the shared-memory fd;
 *   4. for each existing peer (only the vnpu, id 0), its id once per
 *      vector, each with one of that peer's eventfds; QEMU writes to
 *      eventfd n when the guest rings doorbell (0 << 16 | n);
 *   5. its own id once per vector, each with one of its eventfds; the
 *      vnpu writes eventfd n to raise MSI-X vector n in the guest.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "vnpu.h"

#define IVSHMEM_PROTOCOL_VERSION 0
#define CLIENT_PEER_ID 1

/*
 * Binds a listening unix socket at @path. It is bound under a temporary
 * name and renamed into place after listen(), so a client that sees the
 * path can always connect.
 */
int unix_listen(const char *path, char *why, size_t why_size)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	char tmp[sizeof(addr.sun_path)];
	int fd;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.%ld", path,
			     (long)getpid()) >= sizeof(tmp)) {
		snprintf(why, why_size, "socket path %s is too long", path);
		return -1;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		snprintf(why, why_size, "socket: %s", strerror(errno));
		return -1;
	}
	memcpy(addr.sun_path, tmp, sizeof(tmp));
	unlink(tmp);
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) ||
	    listen(fd, 4) || rename(tmp, path)) {
		snprintf(why, why_size, "%s: %s", path, strerror(errno));
		unlink(tmp);
		close(fd);
		return -1;
	}
	return fd;
}

static int send_msg(int sock, int64_t value, int fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} control;
	struct iovec iov = { .iov_base = &value, .iov_len = sizeof(value) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	if (fd >= 0) {
		struct cmsghdr *cmsg;

		memset(&control, 0, sizeof(control));
		msg.msg_control = control.buf;
		msg.msg_controllen = sizeof(control.buf);
		cmsg = CMSG_FIRSTHDR(&msg);
		cmsg->cmsg_level = SOL_SOCKET;
		cmsg->cmsg_type = SCM_RIGHTS;
		cmsg->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
	}
	do {
		n = sendmsg(sock, &msg, MSG_NOSIGNAL);
	} while (n < 0 && errno == EINTR);
	return n == (ssize_t)sizeof(value) ? 0 : -1;
}

int ivshmem_greet(struct vnpu *v, int client_fd)
{
	unsigned int i;

	if (send_msg(client_fd, IVSHMEM_PROTOCOL_VERSION, -1) ||
	    send_msg(client_fd, CLIENT_PEER_ID, -1) ||
	    send_msg(client_fd, -1, v->shm_fd))
		goto fail;
	for (i = 0; i < ENPU_NUM_VECTORS; i++)
		if (send_msg(client_fd, ENPU_VNPU_PEER_ID, v->doorbell_fd[i]))
			goto fail;
	for (i = 0; i < ENPU_NUM_VECTORS; i++)
		if (send_msg(client_fd, CLIENT_PEER_ID, v->msi_fd[i]))
			goto fail;
	return 0;
fail:
	vnpu_log(v, "ivshmem handshake with the client failed: %s",
		 strerror(errno));
	return -1;
}
