// SPDX-License-Identifier: MIT
/*
 * Device discovery: accel nodes first (the node type ENPU is meant to use
 * where CONFIG_DRM_ACCEL exists), then render nodes, since on 6.1 the
 * driver can only register a render node.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "enpu_internal.h"

struct enpu_device_list {
	char **paths;
	size_t count;
};

struct node_number {
	unsigned long number;
	char *path;
};

static int compare_node_numbers(const void *a, const void *b)
{
	const struct node_number *left = a, *right = b;

	return (left->number > right->number) - (left->number < right->number);
}

/* "renderD128" with prefix "renderD" -> 128; -1 if the name is not a node. */
static int parse_node_number(const char *name, const char *prefix,
			     unsigned long *number)
{
	size_t prefix_length = strlen(prefix);
	char *end;

	if (strncmp(name, prefix, prefix_length) || !name[prefix_length])
		return -1;
	errno = 0;
	*number = strtoul(name + prefix_length, &end, 10);
	if (errno || *end || name[prefix_length] < '0' ||
	    name[prefix_length] > '9')
		return -1;
	return 0;
}

static void free_nodes(struct node_number *nodes, size_t count)
{
	for (size_t i = 0; i < count; i++)
		free(nodes[i].path);
	free(nodes);
}

/*
 * Appends to list every ENPU node named <prefix><N> in directory, in
 * ascending N. A missing directory just has no nodes.
 */
static int add_nodes(enpu_device_list *list, const char *directory,
		     const char *prefix, struct enpu_error *error)
{
	struct node_number *nodes = NULL;
	size_t count = 0, capacity = 0;
	struct dirent *entry;
	int status = 0;
	DIR *dir;

	dir = opendir(directory);
	if (!dir)
		return 0;
	while ((entry = readdir(dir))) {
		unsigned long number;
		char *path;

		if (parse_node_number(entry->d_name, prefix, &number))
			continue;
		if (asprintf(&path, "%s/%s", directory, entry->d_name) < 0) {
			status = enpu_fail(error, -ENOMEM,
					   "out of memory listing %s",
					   directory);
			goto out;
		}
		if (count == capacity) {
			size_t new_capacity = capacity ? capacity * 2 : 8;
			struct node_number *grown;

			grown = realloc(nodes, new_capacity * sizeof(*nodes));
			if (!grown) {
				free(path);
				status = enpu_fail(error, -ENOMEM,
						   "out of memory listing %s",
						   directory);
				goto out;
			}
			nodes = grown;
			capacity = new_capacity;
		}
		nodes[count].number = number;
		nodes[count].path = path;
		count++;
	}
	if (count > 1)
		qsort(nodes, count, sizeof(*nodes), compare_node_numbers);

	for (size_t i = 0; i < count; i++) {
		char **grown;
		int fd;

		/* Nodes we cannot open or that are not ENPUs are not listed. */
		if (enpu_node_open(nodes[i].path, 0, NULL, NULL, &fd, NULL))
			continue;
		close(fd);
		grown = realloc(list->paths,
				(list->count + 1) * sizeof(*list->paths));
		if (!grown) {
			status = enpu_fail(error, -ENOMEM,
					   "out of memory listing %s",
					   directory);
			goto out;
		}
		list->paths = grown;
		list->paths[list->count++] = nodes[i].path;
		nodes[i].path = NULL;
	}
out:
	free_nodes(nodes, count);
	closedir(dir);
	return status;
}

int enpu_device_list_create_under(const char *dev_directory,
				  enpu_device_list **list_out,
				  struct enpu_error *error)
{
	static const struct {
		const char *subdirectory;
		const char *prefix;
	} node_kinds[] = {
		{ "accel", "accel" },
		{ "dri", "renderD" },
	};
	enpu_device_list *list;
	int status;

	if (!dev_directory)
		return enpu_fail(error, -EINVAL,
				 "enpu_device_list_create_under: dev_directory is NULL");
	if (!list_out)
		return enpu_fail(error, -EINVAL,
				 "enpu_device_list_create_under: list is NULL");
	if (access(dev_directory, X_OK))
		return enpu_fail(error, -errno, "cannot search %s: %s",
				 dev_directory, strerror(errno));

	list = calloc(1, sizeof(*list));
	if (!list)
		return enpu_fail(error, -ENOMEM,
				 "out of memory listing %s", dev_directory);
	for (size_t i = 0; i < sizeof(node_kinds) / sizeof(node_kinds[0]);
	     i++) {
		char *directory;

		if (asprintf(&directory, "%s/%s", dev_directory,
			     node_kinds[i].subdirectory) < 0) {
			enpu_device_list_destroy(list);
			return enpu_fail(error, -ENOMEM,
					 "out of memory listing %s",
					 dev_directory);
		}
		status = add_nodes(list, directory, node_kinds[i].prefix,
				   error);
		free(directory);
		if (status) {
			enpu_device_list_destroy(list);
			return status;
		}
	}
	*list_out = list;
	return 0;
}

int enpu_device_list_create(enpu_device_list **list, struct enpu_error *error)
{
	return enpu_device_list_create_under("/dev", list, error);
}

int enpu_device_list_destroy(enpu_device_list *list)
{
	if (!list)
		return 0;
	for (size_t i = 0; i < list->count; i++)
		free(list->paths[i]);
	free(list->paths);
	free(list);
	return 0;
}

int enpu_device_list_count(const enpu_device_list *list, size_t *count)
{
	if (!list || !count)
		return -EINVAL;
	*count = list->count;
	return 0;
}

int enpu_device_list_path(const enpu_device_list *list, size_t index,
			  const char **path)
{
	if (!list || !path)
		return -EINVAL;
	if (index >= list->count)
		return -ENOENT;
	*path = list->paths[index];
	return 0;
}
