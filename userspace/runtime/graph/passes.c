// SPDX-License-Identifier: MIT
/* Running a pass table. */
#include "passes.h"

int rt_passes_run(struct rt_graph *graph, const struct rt_pass *passes,
		  size_t count)
{
	for (size_t i = 0; i < count; i++) {
		int status = passes[i].run(graph);

		/* Each pass may walk graph->order: keep it current. */
		if (!status)
			status = rt_graph_sort(graph);
		if (status)
			return status;
	}
	return 0;
}
