/*
 * model_comm.h - time of collective communication on one link class.
 *
 * Ring algorithms (Patarasuk & Yuan 2009; NCCL): all-reduce moves
 * 2 (n-1)/n of the buffer through each GPU's link, all-gather and
 * reduce-scatter (n-1)/n.  Latency is taken per tree level (log2 n), as
 * NCCL switches to trees where latency dominates.  specs/models.md,
 * section "Communication".
 */
#ifndef CAPPLAN_MODEL_COMM_H
#define CAPPLAN_MODEL_COMM_H

/* A link class as one GPU sees it. */
struct link {
	double bw_bytes_per_s; /* achievable, per GPU per direction */
	double latency_s;      /* per message hop */
	double overlap_cost;   /* compute time lost per second of traffic
				  that overlaps compute */
};

/* Intra-node (NVLink/xGMI/PCIe) link from a datasheet bandwidth. */
struct link link_intra_node(double datasheet_bw_bytes_per_s);

/* Inter-node (InfiniBand/RoCE) link from a datasheet bandwidth. */
struct link link_inter_node(double datasheet_bw_bytes_per_s);

/* All-reduce of a 'bytes' buffer over 'n' GPUs; 0 when n <= 1. */
double comm_allreduce_s(const struct link *l, double bytes, int n);

/* All-gather producing a 'bytes' buffer on each of 'n' GPUs. */
double comm_allgather_s(const struct link *l, double bytes, int n);

/* Reduce-scatter of a 'bytes' buffer over 'n' GPUs. */
double comm_reducescatter_s(const struct link *l, double bytes, int n);

/*
 * Time that 'comm_s' of traffic adds to a step when it runs concurrently
 * with 'compute_s' of compute: the part that does not fit under the
 * compute, plus the slowdown that the hidden part inflicts on it.
 */
double comm_overlapped_s(const struct link *l, double comm_s,
			 double compute_s);

/* All-to-all where each of 'n' GPUs holds 'bytes' and keeps 1/n of it. */
double comm_alltoall_s(const struct link *l, double bytes, int n);

/* Point-to-point send of 'bytes'. */
double comm_p2p_s(const struct link *l, double bytes);

#endif
