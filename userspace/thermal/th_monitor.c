// SPDX-License-Identifier: MIT
/*
 * Sampling the sysfs state at a bounded rate. Polling reads the tree at
 * most once per min_interval_ms (never more than once a second unless the
 * caller asks for a shorter interval explicitly, as tests do). Where the
 * kernel has the thermal generic-netlink family (CONFIG_THERMAL_NETLINK)
 * and the root is the real "/", the monitor also joins its "event"
 * multicast group: a trip crossing or a cooling-device change makes the
 * next poll read at once instead of waiting for the interval.
 */
#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "enpu_thermal.h"

#define NL_BUF 4096

struct enpu_th_monitor {
	char root[256];
	uint32_t min_interval_ms;
	bool sampled;
	uint64_t last_ms;
	uint64_t samples;
	int nl_fd;		/* -1 without netlink */
};

/* Resolves the "thermal" family's "event" group id with CTRL_CMD_GETFAMILY. */
static int genl_event_group(int fd)
{
	struct {
		struct nlmsghdr nh;
		struct genlmsghdr gh;
		char attrs[64];
	} req;
	static const char family[] = "thermal";
	struct nlattr *na;
	char buf[NL_BUF];
	ssize_t n;
	int group = -1;

	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_type = GENL_ID_CTRL;
	req.nh.nlmsg_flags = NLM_F_REQUEST;
	req.nh.nlmsg_seq = 1;
	req.gh.cmd = CTRL_CMD_GETFAMILY;
	req.gh.version = 1;
	na = (struct nlattr *)req.attrs;
	na->nla_type = CTRL_ATTR_FAMILY_NAME;
	na->nla_len = NLA_HDRLEN + sizeof(family);
	memcpy((char *)na + NLA_HDRLEN, family, sizeof(family));
	req.nh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN) + NLA_ALIGN(na->nla_len);
	if (send(fd, &req, req.nh.nlmsg_len, 0) < 0)
		return -1;
	n = recv(fd, buf, sizeof(buf), 0);
	if (n < (ssize_t)NLMSG_LENGTH(GENL_HDRLEN))
		return -1;
	{
		struct nlmsghdr *nh = (struct nlmsghdr *)buf;
		char *p, *end;

		if (nh->nlmsg_type == NLMSG_ERROR || !NLMSG_OK(nh, (size_t)n))
			return -1;
		p = (char *)NLMSG_DATA(nh) + GENL_HDRLEN;
		end = (char *)nh + nh->nlmsg_len;
		while (p + NLA_HDRLEN <= end) {
			na = (struct nlattr *)p;
			if (na->nla_len < NLA_HDRLEN || p + na->nla_len > end)
				break;
			if ((na->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_MCAST_GROUPS) {
				char *g = p + NLA_HDRLEN, *gend = p + na->nla_len;

				while (g + NLA_HDRLEN <= gend) {
					struct nlattr *grp = (struct nlattr *)g;
					char *q = g + NLA_HDRLEN;
					char *qend = g + grp->nla_len;
					int id = -1;
					bool is_event = false;

					if (grp->nla_len < NLA_HDRLEN || qend > gend)
						break;
					while (q + NLA_HDRLEN <= qend) {
						struct nlattr *a = (struct nlattr *)q;

						if (a->nla_len < NLA_HDRLEN ||
						    q + a->nla_len > qend)
							break;
						if (a->nla_type == CTRL_ATTR_MCAST_GRP_ID &&
						    a->nla_len >= NLA_HDRLEN + 4)
							memcpy(&id, q + NLA_HDRLEN, 4);
						if (a->nla_type == CTRL_ATTR_MCAST_GRP_NAME &&
						    !strncmp(q + NLA_HDRLEN, "event",
							     a->nla_len - NLA_HDRLEN))
							is_event = true;
						q += NLA_ALIGN(a->nla_len);
					}
					if (is_event && id >= 0)
						group = id;
					g += NLA_ALIGN(grp->nla_len);
				}
			}
			p += NLA_ALIGN(na->nla_len);
		}
	}
	return group;
}

static int netlink_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int fd, group;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
		goto fail;
	group = genl_event_group(fd);
	if (group < 0 || setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP,
				    &group, sizeof(group)))
		goto fail;
	return fd;
fail:
	close(fd);
	return -1;
}

/* Drains pending events without blocking; true if there was one. */
static bool netlink_event(int fd)
{
	char buf[NL_BUF];
	bool any = false;

	while (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		any = true;
	return any;
}

int enpu_th_monitor_create(const char *root, uint32_t min_interval_ms,
			   bool use_netlink, struct enpu_th_monitor **out)
{
	struct enpu_th_monitor *m;

	*out = NULL;
	if (!root || !*root)
		root = "/";
	if (strlen(root) >= sizeof(m->root))
		return -ENAMETOOLONG;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	strcpy(m->root, root);
	m->min_interval_ms = min_interval_ms;
	m->nl_fd = -1;
	if (use_netlink && !strcmp(root, "/"))
		m->nl_fd = netlink_open();
	*out = m;
	return 0;
}

void enpu_th_monitor_destroy(struct enpu_th_monitor *m)
{
	if (!m)
		return;
	if (m->nl_fd >= 0)
		close(m->nl_fd);
	free(m);
}

bool enpu_th_monitor_has_netlink(const struct enpu_th_monitor *m)
{
	return m->nl_fd >= 0;
}

uint64_t enpu_th_monitor_samples(const struct enpu_th_monitor *m)
{
	return m->samples;
}

int enpu_th_monitor_poll(struct enpu_th_monitor *m, uint64_t now_ms,
			 struct enpu_th_snapshot *snapshot)
{
	bool event = m->nl_fd >= 0 && netlink_event(m->nl_fd);
	int ret;

	if (m->sampled && !event && now_ms - m->last_ms < m->min_interval_ms)
		return 0;
	ret = enpu_th_read(m->root, snapshot);
	if (ret)
		return ret;
	m->sampled = true;
	m->last_ms = now_ms;
	m->samples++;
	return 1;
}
