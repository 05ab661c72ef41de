/* model_comm.c - collective communication times; see model_comm.h. */
#include "model_comm.h"

#include <math.h>

#include "cluster.h"

/*
 * Achievable fraction of the datasheet link bandwidth for large messages.
 * NVLink: nccl-tests all_reduce bus bandwidth on DGX A100 is ~230 GB/s of
 * 300 GB/s per direction, on DGX H100 ~360-370 GB/s of 450 GB/s (NVIDIA
 * nccl-tests results, DGX user guides): 0.78.  InfiniBand: NDR/HDR
 * adapters deliver ~90-95% of line rate in nccl-tests across nodes: 0.90.
 */
static const double intra_node_eff = COMM_INTRA_NODE_EFF;
static const double inter_node_eff = COMM_INTER_NODE_EFF;

/* Per-hop latency: NVLink ~2-3 us, InfiniBand ~5 us through a switch
   (NCCL tuning tables use similar base latencies). */
static const double intra_node_latency_s = 3e-6;
static const double inter_node_latency_s = 6e-6;

/*
 * Collectives that run concurrently with compute slow it down: NCCL runs
 * every collective as kernels on the SMs (one CTA per channel, 8-32
 * channels of the 108-148 SMs) that copy and reduce the data and contend
 * for HBM bandwidth, whichever link carries it: InfiniBand traffic is
 * sent by the NIC (GPUDirect RDMA), but a ring or tree across nodes still
 * passes through the NVLink hops and the reductions of every GPU.  The
 * fraction of the overlapped communication time that is added to compute
 * time (Rashidi et al. 2021, "Enabling compute-communication overlap in
 * distributed deep learning training platforms"; Calculon uses 0.15 for
 * NVLink and 0.02 for the network, whose reductions it leaves out).
 */
static const double intra_node_overlap_cost = 0.15;
static const double inter_node_overlap_cost = 0.15;

/*
 * NVLink SHARP (NCCL's NVLS all-reduce): each GPU has the switch reduce
 * one n-th of the buffer from every GPU and multicast the sum back, so
 * each GPU's link carries (n + 1)/n of the buffer each way, against
 * 2 (n - 1)/n for a ring.  Achievable: on 8 H100 SXM an algorithm
 * bandwidth of about 275 GB/s (NCCL's maintainer, nccl-tests issue 212),
 * 275 x 9/8 = 309 GB/s through each 450 GB/s link, 0.69; the same figure
 * gives 259, 266, 272 and 276 GB/s on 5-8 GPUs, where 258, 265, 270 and
 * 273 were measured (NCCL issue 1455), and 248 on 4, where NVLS measured
 * no faster than the ring: against this file's ring (234) it wins by 6%.
 * Its latency is NCCL's own for NVLS (tuning.cc: 25 us), so small
 * messages stay on the ring.
 */
static const double nvls_eff = 0.69;
static const double nvls_latency_s = 25e-6;

struct link link_intra_node_at(double datasheet_bw_bytes_per_s,
			       bool nvlink_sharp, double eff)
{
	double e = eff > 0.0 ? eff : intra_node_eff;
	struct link l = { datasheet_bw_bytes_per_s * e, intra_node_latency_s,
			  intra_node_overlap_cost,
			  nvlink_sharp ? datasheet_bw_bytes_per_s * nvls_eff *
						 (e / intra_node_eff) :
					 0.0,
			  nvlink_sharp ? nvls_latency_s : 0.0 };
	return l;
}

struct link link_inter_node_at(double datasheet_bw_bytes_per_s, double eff)
{
	struct link l = { datasheet_bw_bytes_per_s *
				  (eff > 0.0 ? eff : inter_node_eff),
			  inter_node_latency_s, inter_node_overlap_cost,
			  0.0, 0.0 };
	return l;
}

struct link link_intra_node(double datasheet_bw_bytes_per_s,
			    bool nvlink_sharp)
{
	return link_intra_node_at(datasheet_bw_bytes_per_s, nvlink_sharp, 0.0);
}

struct link link_inter_node(double datasheet_bw_bytes_per_s)
{
	return link_inter_node_at(datasheet_bw_bytes_per_s, 0.0);
}

struct link comm_inter_link(const struct cluster *cl)
{
	return link_inter_node_at(cl->inter_bw_bytes_per_s,
				  cl->inter_comm_eff);
}

struct link comm_link(const struct cluster *cl, int span, int group)
{
	struct link l;
	int node = cl->gpus_per_node;

	if (span > node)
		return comm_inter_link(cl);
	/* a mesh has no switch to reduce in, and a group of g uses g - 1
	   of the node - 1 links each device has */
	l = link_intra_node_at(cl->intra_bw_bytes_per_s,
			       cl->nvlink_sharp && !cl->intra_mesh,
			       cl->intra_comm_eff);
	if (cl->intra_mesh && group > 1 && group < node)
		l.bw_bytes_per_s *= (group - 1.0) / (node - 1.0);
	return l;
}

double comm_overlapped_s(const struct link *l, double comm_s,
			 double compute_s)
{
	double hidden = comm_s < compute_s ? comm_s : compute_s;

	return comm_s - hidden + l->overlap_cost * hidden;
}

double comm_overlapped_sms_s(const struct link *l, double comm_s,
			     double compute_s, double sm_share)
{
	double lost = 0.0;

	if (sm_share > 0.0 && sm_share < 1.0)
		lost = fmin(comm_s, compute_s / (1.0 - sm_share)) * sm_share;
	return lost + comm_overlapped_s(l, comm_s, compute_s + lost);
}

/* Levels of a binary tree over 'n' ranks: ceil(log2 n). */
static int tree_levels(int n)
{
	int levels = 0;

	while (levels < 31 && (1 << levels) < n)
		levels++;
	return levels;
}

static double ring_s(const struct link *l, double bytes, int n,
		     double passes)
{
	if (n <= 1 || bytes <= 0.0)
		return 0.0;
	return passes * (n - 1.0) / n * bytes / l->bw_bytes_per_s +
	       passes * tree_levels(n) * l->latency_s;
}

double comm_allreduce_s(const struct link *l, double bytes, int n)
{
	double ring = ring_s(l, bytes, n, 2.0);
	double sharp;

	if (ring <= 0.0 || !(l->sharp_bw_bytes_per_s > 0.0))
		return ring;
	sharp = (n + 1.0) / n * bytes / l->sharp_bw_bytes_per_s +
		l->sharp_latency_s;
	return sharp < ring ? sharp : ring;
}

double comm_allgather_s(const struct link *l, double bytes, int n)
{
	return ring_s(l, bytes, n, 1.0);
}

double comm_reducescatter_s(const struct link *l, double bytes, int n)
{
	return ring_s(l, bytes, n, 1.0);
}

double comm_alltoall_s(const struct link *l, double bytes, int n)
{
	return ring_s(l, bytes, n, 1.0);
}

double comm_alltoall_nodes_s(const struct link *intra,
			     const struct link *inter, const struct link *pcie,
			     double bytes, int n, int per_node,
			     int direct_peers)
{
	int in_node = per_node > 0 && per_node < n ? per_node : n;
	int direct = direct_peers > 0 && direct_peers < in_node - 1 ?
			     direct_peers :
			     in_node - 1;
	double chunk = n > 0 ? bytes / n : 0.0;
	double t_in = 0.0, t_out = 0.0;

	if (n <= 1 || bytes <= 0.0)
		return 0.0;
	/* every peer gets its chunk at the same time: the peers in the
	   node over NVLink (those without a link of their own over
	   PCIe), the others over the GPU's network port */
	if (in_node > 1) {
		double t_nv = direct * chunk / intra->bw_bytes_per_s;
		double t_pcie = pcie ? (in_node - 1 - direct) * chunk /
					       pcie->bw_bytes_per_s :
				       0.0;

		t_in = (t_nv > t_pcie ? t_nv : t_pcie) +
		       tree_levels(in_node) * intra->latency_s;
	}
	if (n > in_node)
		t_out = (n - in_node) * chunk / inter->bw_bytes_per_s +
			tree_levels(n / in_node) * inter->latency_s;
	return t_in > t_out ? t_in : t_out;
}

double comm_p2p_s(const struct link *l, double bytes)
{
	return bytes > 0.0 ? bytes / l->bw_bytes_per_s + l->latency_s : 0.0;
}
