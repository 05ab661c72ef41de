/*
 * graph_cycle.c - whether the operators of a graph form a cycle: an ONNX
 * graph is acyclic (its nodes in topological order, ONNX IR
 * specification, "Graphs"), and shapes, costs and fusion all follow the
 * tensors from producer to consumer.  See graph.h.
 */
#include "graph.h"

#include <stdlib.h>

/* The node that makes input 'k' of node 'n'; -1 for a graph input, a
   weight or an omitted input. */
static int maker(const struct graph *g, const struct graph_node *n, int k)
{
	int t = g->inputs[n->in_first + k];

	return t >= 0 ? g->tensors[t].producer : -1;
}

/* An input maker of node 'u' that the sort left out ('left'), the first
   in input order: one exists for every node left out. */
static int left_maker(const struct graph *g, const int *left, int u)
{
	const struct graph_node *n = &g->nodes[u];

	for (int k = 0; k < n->n_in; k++) {
		int p = maker(g, n, k);

		if (p >= 0 && left[p] > 0)
			return p;
	}
	return u; /* not reached */
}

int graph_find_cycle(const struct graph *g)
{
	int n = g->n_nodes, edges = 0, head = 0, tail = 0, rc = 0;
	int *left, *first, *next, *succ, *queue;

	for (int i = 0; i < n; i++)
		for (int k = 0; k < g->nodes[i].n_in; k++)
			edges += maker(g, &g->nodes[i], k) >= 0;
	/* left[i]: inputs of node i whose maker is not yet sorted; the
	   consumers of node p: succ[first[p] .. first[p + 1] - 1] */
	left = calloc((size_t)n + 1, sizeof(*left));
	first = calloc((size_t)n + 2, sizeof(*first));
	next = calloc((size_t)n + 1, sizeof(*next));
	succ = calloc((size_t)edges + 1, sizeof(*succ));
	queue = calloc((size_t)n + 1, sizeof(*queue));
	if (!left || !first || !next || !succ || !queue) {
		rc = -1;
		goto out_free;
	}
	for (int i = 0; i < n; i++)
		for (int k = 0; k < g->nodes[i].n_in; k++) {
			int p = maker(g, &g->nodes[i], k);

			if (p >= 0) {
				left[i]++;
				first[p + 1]++;
			}
		}
	for (int p = 0; p < n; p++) {
		first[p + 1] += first[p];
		next[p] = first[p];
	}
	for (int i = 0; i < n; i++)
		for (int k = 0; k < g->nodes[i].n_in; k++) {
			int p = maker(g, &g->nodes[i], k);

			if (p >= 0)
				succ[next[p]++] = i;
		}
	/* Kahn's sort: what it cannot reach is on a cycle or after one */
	for (int i = 0; i < n; i++)
		if (left[i] == 0)
			queue[tail++] = i;
	while (head < tail) {
		int p = queue[head++];

		for (int e = first[p]; e < first[p + 1]; e++)
			if (--left[succ[e]] == 0)
				queue[tail++] = succ[e];
	}
	if (tail < n) {
		int u = 0, best;

		while (left[u] == 0)
			u++;
		/* walking back through makers left out, n steps land on a
		   cycle; of its nodes, name the first in the file */
		for (int s = 0; s < n; s++)
			u = left_maker(g, left, u);
		best = u;
		for (int v = left_maker(g, left, u); v != u;
		     v = left_maker(g, left, v))
			if (v < best)
				best = v;
		rc = best + 1;
	}
out_free:
	free(left);
	free(first);
	free(next);
	free(succ);
	free(queue);
	return rc;
}
