/*
 * model_comm.h - time of collective communication on one link class.
 *
 * Ring algorithms (Patarasuk & Yuan 2009; NCCL): all-reduce moves
 * 2 (n-1)/n of the buffer through each GPU's link, all-gather and
 * reduce-scatter (n-1)/n.  Latency is taken per tree level (log2 n), as
 * NCCL switches to trees where latency dominates.  A node whose NVLink
 * switches reduce in the network (NVLink SHARP) all-reduces through the
 * switch when that is faster (NCCL's NVLS algorithm).  specs/models.md,
 * section "Communication".
 */
#ifndef CAPPLAN_MODEL_COMM_H
#define CAPPLAN_MODEL_COMM_H

#include <stdbool.h>

/*
 * Achievable share of the datasheet link bandwidth in large collectives
 * (model_comm.c says where each comes from): NVLink and the like within
 * a node, InfiniBand or RoCE across nodes.  A device's intra_comm_eff and
 * inter_comm_eff (a calibration profile's) replace them.
 */
#define COMM_INTRA_NODE_EFF 0.78
#define COMM_INTER_NODE_EFF 0.90

/* A link class as one GPU sees it. */
struct link {
	double bw_bytes_per_s; /* achievable, per GPU per direction */
	double latency_s;      /* per message hop */
	double overlap_cost;   /* compute time lost per second of traffic
				  that overlaps compute */
	double sharp_bw_bytes_per_s; /* achievable per direction through a
					switch that reduces (NVLink
					SHARP); 0: none */
	double sharp_latency_s;      /* per all-reduce through it */
};

/*
 * Intra-node (NVLink/xGMI/PCIe) link from a datasheet bandwidth;
 * 'nvlink_sharp': the node's switches reduce (the catalog column).
 */
struct link link_intra_node(double datasheet_bw_bytes_per_s,
			    bool nvlink_sharp);

/* Inter-node (InfiniBand/RoCE) link from a datasheet bandwidth. */
struct link link_inter_node(double datasheet_bw_bytes_per_s);

/*
 * The same two at a collective efficiency 'eff' of the link's own (the
 * achievable share of the datasheet bandwidth, a calibration profile's
 * intra_comm_eff or inter_comm_eff; 0: the defaults above).  NVLink
 * SHARP's share moves in proportion to the ring's.
 */
struct link link_intra_node_at(double datasheet_bw_bytes_per_s,
			       bool nvlink_sharp, double eff);
struct link link_inter_node_at(double datasheet_bw_bytes_per_s, double eff);

struct cluster;

/*
 * The link of a collective among 'group' GPUs of a job or group that
 * spans 'span' GPUs: the node's (intra_bw, NVLink SHARP) when span <=
 * gpus_per_node, else the network's.  In a mesh node (intra_mesh) each
 * device has a link of its own to each of the gpus_per_node - 1 others,
 * intra_bw split evenly over them, and 'group' GPUs reach each other
 * over group - 1 of them (a send between two: one): that share of
 * intra_bw.  Callers pass products of parallel sizes saturated
 * (ck_sat_mul_int), so that a span past an int is not within a node.
 */
struct link comm_link(const struct cluster *cl, int span, int group);

/* The network between the nodes of 'cl' (inter_bw at its collective
   efficiency): comm_link's link beyond a node. */
struct link comm_inter_link(const struct cluster *cl);

/*
 * All-reduce of a 'bytes' buffer over 'n' GPUs; 0 when n <= 1.  The
 * faster of the ring and, on a link with sharp_bw_bytes_per_s, the
 * switch's reduction: (n + 1)/n of the buffer each way per GPU.
 */
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

/*
 * The same for communication whose kernels hold 'sm_share' of the SMs
 * while they run: the compute beside them goes at (1 - sm_share) of its
 * rate, so it loses sm_share of the time they overlap, min(comm_s,
 * compute_s / (1 - sm_share)) x sm_share, added to it (0 <= sm_share <
 * 1).
 */
double comm_overlapped_sms_s(const struct link *l, double comm_s,
			     double compute_s, double sm_share);

/* All-to-all where each of 'n' GPUs holds 'bytes' and keeps 1/n of it. */
double comm_alltoall_s(const struct link *l, double bytes, int n);

/*
 * All-to-all over 'n' GPUs on nodes of 'per_node' (0: one node): each
 * GPU holds 'bytes' and sends 1/n of it to every other GPU at once: to
 * 'direct_peers' of its node over its own 'intra' links (0 or more than
 * the node holds: all of them, an NVSwitch), to the rest of the node
 * over 'pcie' (NULL: none), and to the other nodes over 'inter'; the
 * slowest of the three, with a latency per tree level.
 */
double comm_alltoall_nodes_s(const struct link *intra,
			     const struct link *inter, const struct link *pcie,
			     double bytes, int n, int per_node,
			     int direct_peers);

/* Point-to-point send of 'bytes'. */
double comm_p2p_s(const struct link *l, double bytes);

#endif
