/* test_model_comm.c - collective communication times (cmocka). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "cluster.h"
#include "model_comm.h"

static void assert_rel(double got, double want, double tol)
{
	double scale = fabs(want) > 0.0 ? fabs(want) : 1.0;

	if (!(fabs(got - want) <= tol * scale)) {
		print_error("got %.17g, want %.17g (tol %g)\n", got, want, tol);
		fail();
	}
}

static const struct link test_link = { 187.3e9, 4.7e-6, 0.137, 0.0, 0.0 };
static const struct link no_latency = { 187.3e9, 0.0, 0.137, 0.0, 0.0 };

/* Ring all-reduce (Patarasuk & Yuan 2009): 2 (n-1)/n of the buffer over
   each link; latency 2 ceil(log2 n) hops. */
static void test_allreduce(void **state)
{
	static const struct {
		int n;
		double want; /* 3.71e8 bytes, computed separately */
	} cases[] = {
		{ 2, 0.0019901794981313403 },
		{ 3, 0.0026598393308417865 },
		{ 6, 0.0033294991635522335 },
		{ 8, 0.0034945641217298453 },
		{ 64, 0.003956059636946076 },
	};
	double b = 3.71e8;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int n = cases[i].n;

		assert_rel(comm_allreduce_s(&test_link, b, n), cases[i].want,
			   1e-14);
		/* the bandwidth term alone */
		assert_rel(comm_allreduce_s(&no_latency, b, n),
			   2.0 * (n - 1.0) / n * b / 187.3e9, 1e-14);
	}
	/* approaches twice the buffer over the link for large n */
	assert_rel(comm_allreduce_s(&no_latency, b, 4096), 2.0 * b / 187.3e9,
		   1e-3);
}

static void test_trivial(void **state)
{
	(void)state;
	assert_rel(comm_allreduce_s(&test_link, 3.71e8, 1), 0.0, 0.0);
	assert_rel(comm_allreduce_s(&test_link, 3.71e8, 0), 0.0, 0.0);
	assert_rel(comm_allreduce_s(&test_link, 3.71e8, -4), 0.0, 0.0);
	assert_rel(comm_allgather_s(&test_link, 3.71e8, 1), 0.0, 0.0);
	assert_rel(comm_reducescatter_s(&test_link, 3.71e8, 1), 0.0, 0.0);
	assert_rel(comm_allreduce_s(&test_link, 0.0, 8), 0.0, 0.0);
	assert_rel(comm_p2p_s(&test_link, 0.0), 0.0, 0.0);
}

/* All-gather and reduce-scatter each move (n-1)/n: half an all-reduce,
   which is one of each. */
static void test_gather_scatter(void **state)
{
	double b = 5.29e7;

	(void)state;
	for (int n = 2; n <= 17; n++) {
		double ar = comm_allreduce_s(&test_link, b, n);
		double ag = comm_allgather_s(&test_link, b, n);
		double rs = comm_reducescatter_s(&test_link, b, n);

		assert_rel(comm_allgather_s(&no_latency, b, n),
			   (n - 1.0) / n * b / 187.3e9, 1e-14);
		assert_rel(comm_reducescatter_s(&no_latency, b, n),
			   (n - 1.0) / n * b / 187.3e9, 1e-14);
		assert_rel(ag, ar / 2.0, 1e-14);
		assert_rel(ag + rs, ar, 1e-14);
	}
	assert_rel(comm_allgather_s(&test_link, b, 6),
		   5.0 / 6.0 * b / 187.3e9 + 3.0 * 4.7e-6, 1e-14);
}

static void test_latency_grows(void **state)
{
	(void)state;
	/* tiny messages: latency dominates and grows with log2 n */
	assert_true(comm_allreduce_s(&test_link, 8.0, 64) >
		    comm_allreduce_s(&test_link, 8.0, 8));
	assert_rel(comm_allreduce_s(&test_link, 8.0, 64),
		   2.0 * 6.0 * 4.7e-6, 1e-5);
}

static void test_p2p(void **state)
{
	(void)state;
	assert_rel(comm_p2p_s(&test_link, 2.53e7), 2.53e7 / 187.3e9 + 4.7e-6,
		   1e-14);
}

static void test_links(void **state)
{
	struct link in = link_intra_node(300e9, false);
	struct link in2 = link_intra_node(450e9, false);
	struct link out = link_inter_node(25e9);

	(void)state;
	/* achievable below the datasheet, in proportion to it */
	assert_true(in.bw_bytes_per_s > 0.5 * 300e9);
	assert_true(in.bw_bytes_per_s < 300e9);
	assert_rel(in2.bw_bytes_per_s / in.bw_bytes_per_s, 1.5, 1e-14);
	assert_true(out.bw_bytes_per_s > 0.5 * 25e9);
	assert_true(out.bw_bytes_per_s <= 25e9);
	/* microsecond latencies; the network is slower than NVLink */
	assert_true(in.latency_s > 0.0 && in.latency_s < 1e-4);
	assert_true(out.latency_s >= in.latency_s && out.latency_s < 1e-4);
	/* NCCL's kernels copy and reduce on the SMs over either link */
	assert_rel(out.overlap_cost, in.overlap_cost, 0.0);
	assert_true(out.overlap_cost >= 0.0 && in.overlap_cost < 1.0);
}

/* The link classes of specs/models.md 5.1, by hand: intra-node
   bw = intra_bw x 0.78, 3 us, overlap cost 0.15; inter-node
   bw = inter_bw x 0.90, 6 us, overlap cost 0.15. */
static void test_link_constants(void **state)
{
	struct link in = link_intra_node(312.5e9, false);
	struct link out = link_inter_node(37.5e9);

	(void)state;
	assert_rel(in.bw_bytes_per_s, 312.5e9 * 0.78, 1e-15);
	assert_rel(in.latency_s, 3e-6, 1e-15);
	assert_rel(in.overlap_cost, 0.15, 1e-15);
	assert_rel(out.bw_bytes_per_s, 37.5e9 * 0.90, 1e-15);
	assert_rel(out.latency_s, 6e-6, 1e-15);
	assert_rel(out.overlap_cost, 0.15, 1e-15);
	/* an all-reduce of 5.29e7 bytes over 6 GPUs of each class:
	   2 (5/6) bytes / bw + 2 ceil(log2 6) latency */
	assert_rel(comm_allreduce_s(&in, 5.29e7, 6),
		   2.0 * 5.0 / 6.0 * 5.29e7 / 243.75e9 + 2.0 * 3.0 * 3e-6,
		   1e-14);
	assert_rel(comm_allreduce_s(&out, 5.29e7, 6),
		   2.0 * 5.0 / 6.0 * 5.29e7 / 33.75e9 + 2.0 * 3.0 * 6e-6,
		   1e-14);
}

/*
 * NVLink SHARP (specs/models.md 5.2): through the switch each GPU moves
 * (n + 1)/n of the buffer each way at 0.69 of the datasheet link, plus
 * 25 us; the all-reduce takes it where it beats the ring.  By hand, on
 * 450 GB/s links (ring: 351 GB/s, 3 us a level; switch: 310.5 GB/s).
 */
static void test_nvlink_sharp(void **state)
{
	struct link sw = link_intra_node(450e9, true);
	struct link ring = link_intra_node(450e9, false);
	double gb = 1e9;

	(void)state;
	assert_rel(sw.sharp_bw_bytes_per_s, 310.5e9, 1e-15);
	assert_rel(sw.sharp_latency_s, 25e-6, 1e-15);
	assert_rel(ring.sharp_bw_bytes_per_s, 0.0, 0.0);
	/* the ring's own figures do not change */
	assert_rel(sw.bw_bytes_per_s, ring.bw_bytes_per_s, 0.0);
	assert_rel(comm_allgather_s(&sw, gb, 8), comm_allgather_s(&ring, gb, 8),
		   0.0);
	assert_rel(comm_reducescatter_s(&sw, gb, 8),
		   comm_reducescatter_s(&ring, gb, 8), 0.0);
	/* 8 GPUs, 1 GB: 9/8 GB at 310.5 GB/s + 25 us = 3.648 ms, where the
	   ring takes 14/8 GB at 351 GB/s + 18 us = 5.004 ms; an algorithm
	   bandwidth of 274 GB/s, as measured (about 275) */
	assert_rel(comm_allreduce_s(&sw, gb, 8), 9.0 / 8.0 * gb / 310.5e9 +
							25e-6, 1e-14);
	assert_rel(comm_allreduce_s(&ring, gb, 8),
		   14.0 / 8.0 * gb / 351e9 + 18e-6, 1e-14);
	/* 4 GPUs: 5/4 at 310.5 (4.051 ms) against 6/4 at 351 (4.286 ms),
	   within the ring's own error; 2 GPUs: the ring (1 GB at 351 GB/s
	   against 3/2 GB at 310.5) */
	assert_rel(comm_allreduce_s(&sw, gb, 4), 5.0 / 4.0 * gb / 310.5e9 +
							25e-6, 1e-14);
	assert_rel(comm_allreduce_s(&sw, gb, 2), comm_allreduce_s(&ring, gb, 2),
		   0.0);
	/* a small message stays on the ring: 64 KiB over 8 GPUs is 18.3 us
	   on it, 25.2 us through the switch */
	assert_rel(comm_allreduce_s(&sw, 65536.0, 8),
		   comm_allreduce_s(&ring, 65536.0, 8), 0.0);
	/* never slower than the ring, at any size */
	for (double b = 1.0; b < 1e11; b *= 3.7)
		for (int n = 2; n <= 72; n += 5)
			assert_true(comm_allreduce_s(&sw, b, n) <=
				    comm_allreduce_s(&ring, b, n));
	/* one GPU, or nothing to send */
	assert_rel(comm_allreduce_s(&sw, gb, 1), 0.0, 0.0);
	assert_rel(comm_allreduce_s(&sw, 0.0, 8), 0.0, 0.0);
	/* no switch across nodes */
	assert_rel(link_inter_node(50e9).sharp_bw_bytes_per_s, 0.0, 0.0);
}

/*
 * comm_link (specs/models.md 5.1): the node's link for a span within it,
 * the network's beyond; in a mesh node a group of g of the N GPUs uses
 * g - 1 of the N - 1 links each has, and no switch reduces.
 */
static void test_comm_link(void **state)
{
	struct cluster cl;
	struct link l;

	(void)state;
	memset(&cl, 0, sizeof(cl));
	cl.gpus_per_node = 8;
	cl.intra_bw_bytes_per_s = 448e9;
	cl.inter_bw_bytes_per_s = 50e9;
	/* a switch: every group within the node gets the whole link */
	for (int g = 1; g <= 8; g++) {
		l = comm_link(&cl, 8, g);
		assert_rel(l.bw_bytes_per_s, 448e9 * 0.78, 1e-15);
		assert_rel(l.sharp_bw_bytes_per_s, 0.0, 0.0);
	}
	l = comm_link(&cl, 9, 9);
	assert_rel(l.bw_bytes_per_s, 50e9 * 0.90, 1e-15);
	cl.nvlink_sharp = true;
	assert_rel(comm_link(&cl, 8, 8).sharp_bw_bytes_per_s, 448e9 * 0.69,
		   1e-15);
	assert_rel(comm_link(&cl, 16, 16).sharp_bw_bytes_per_s, 0.0, 0.0);

	/* a mesh of 8 (MI300X: 7 links of 64 GB/s): a pair gets one link,
	   4 GPUs three, the whole node all seven; no switch to reduce in */
	cl.intra_mesh = true;
	l = comm_link(&cl, 8, 2);
	assert_rel(l.bw_bytes_per_s, 64e9 * 0.78, 1e-14);
	assert_rel(l.sharp_bw_bytes_per_s, 0.0, 0.0);
	assert_rel(comm_link(&cl, 4, 4).bw_bytes_per_s, 3.0 * 64e9 * 0.78,
		   1e-14);
	assert_rel(comm_link(&cl, 8, 8).bw_bytes_per_s, 448e9 * 0.78, 1e-15);
	assert_rel(comm_link(&cl, 8, 8).sharp_bw_bytes_per_s, 0.0, 0.0);
	/* one GPU sends nothing; the latency and overlap cost stay */
	assert_rel(comm_link(&cl, 1, 1).bw_bytes_per_s, 448e9 * 0.78, 1e-15);
	assert_rel(comm_link(&cl, 8, 2).latency_s, 3e-6, 1e-15);
	assert_rel(comm_link(&cl, 8, 2).overlap_cost, 0.15, 1e-15);
	/* across nodes the network's, mesh or not */
	assert_rel(comm_link(&cl, 64, 8).bw_bytes_per_s, 50e9 * 0.90, 1e-15);
	/* an all-reduce over 4 of the 8 takes twice as long as over all 8
	   on a switch: 3/7 of the bandwidth for 6/4 of the traffic against
	   14/8 (bandwidth terms alone: 2.0 times) */
	{
		struct link m4 = comm_link(&cl, 4, 4), m8 = comm_link(&cl, 8, 8);
		double b = 1e9;

		assert_rel((comm_allreduce_s(&m4, b, 4) - 2.0 * 2.0 * 3e-6) /
				   (comm_allreduce_s(&m8, b, 8) -
				    2.0 * 3.0 * 3e-6),
			   (1.5 / 3.0) / (1.75 / 7.0), 1e-12);
	}
}

/*
 * A device's own collective efficiencies (a calibration profile's
 * intra_comm_eff and inter_comm_eff, specs/models.md 5.1): 0 keeps the
 * model's 0.78 and 0.90; a value replaces them in comm_link within and
 * across nodes and in comm_inter_link, and NVLink SHARP's share moves in
 * proportion to the ring's.  By hand on 450 GB/s links and 50 GB/s of
 * network.
 */
static void test_comm_eff(void **state)
{
	struct cluster cl;
	struct link l;

	(void)state;
	memset(&cl, 0, sizeof(cl));
	cl.gpus_per_node = 8;
	cl.intra_bw_bytes_per_s = 450e9;
	cl.inter_bw_bytes_per_s = 50e9;
	cl.nvlink_sharp = true;
	assert_rel(comm_link(&cl, 8, 8).bw_bytes_per_s, 351e9, 1e-14);
	assert_rel(comm_inter_link(&cl).bw_bytes_per_s, 45e9, 1e-14);
	cl.intra_comm_eff = 0.39; /* half the default */
	cl.inter_comm_eff = 0.6;
	l = comm_link(&cl, 8, 8);
	assert_rel(l.bw_bytes_per_s, 175.5e9, 1e-14);
	assert_rel(l.sharp_bw_bytes_per_s, 0.5 * 310.5e9, 1e-14);
	/* latency and overlap cost are not the efficiency's */
	assert_rel(l.latency_s, 3e-6, 1e-15);
	assert_rel(l.overlap_cost, 0.15, 1e-15);
	assert_rel(comm_link(&cl, 16, 16).bw_bytes_per_s, 30e9, 1e-14);
	assert_rel(comm_inter_link(&cl).bw_bytes_per_s, 30e9, 1e-14);
	assert_rel(comm_inter_link(&cl).latency_s, 6e-6, 1e-15);
	/* a large all-reduce over the node takes the time of the slower
	   link: twice the default's bandwidth term (SHARP: 9/8 GB at
	   155.25 GB/s + 25 us) */
	assert_rel(comm_allreduce_s(&l, 1e9, 8),
		   9.0 / 8.0 * 1e9 / 155.25e9 + 25e-6, 1e-14);
	/* the plain links take the same values */
	assert_rel(link_intra_node_at(450e9, false, 0.0).bw_bytes_per_s,
		   link_intra_node(450e9, false).bw_bytes_per_s, 0.0);
	assert_rel(link_inter_node_at(50e9, 0.0).bw_bytes_per_s,
		   link_inter_node(50e9).bw_bytes_per_s, 0.0);
	assert_rel(link_inter_node_at(50e9, 0.5).bw_bytes_per_s, 25e9,
		   1e-15);
}

/* All-to-all (MoE dispatch and combine): one pass of the ring,
   (n - 1)/n of what a GPU sends, ceil(log2 n) latencies. */
static void test_alltoall(void **state)
{
	double b = 7.13e6;

	(void)state;
	assert_rel(comm_alltoall_s(&test_link, b, 5),
		   4.0 / 5.0 * b / 187.3e9 + 3.0 * 4.7e-6, 1e-14);
	assert_rel(comm_alltoall_s(&test_link, b, 64),
		   63.0 / 64.0 * b / 187.3e9 + 6.0 * 4.7e-6, 1e-14);
	assert_rel(comm_alltoall_s(&test_link, b, 1), 0.0, 0.0);
}

static void test_overlapped(void **state)
{
	(void)state;
	/* fully hidden: only the slowdown of the compute */
	assert_rel(comm_overlapped_s(&test_link, 0.0371, 0.0529),
		   0.137 * 0.0371, 1e-14);
	/* not hidden: what sticks out, plus the slowdown under the compute */
	assert_rel(comm_overlapped_s(&test_link, 0.0529, 0.0371),
		   0.0529 - 0.0371 + 0.137 * 0.0371, 1e-14);
	/* nothing to hide behind */
	assert_rel(comm_overlapped_s(&test_link, 0.0529, 0.0), 0.0529, 1e-15);
	assert_rel(comm_overlapped_s(&test_link, 0.0, 0.0371), 0.0, 0.0);
	/* overlap never costs more than running alone */
	assert_true(comm_overlapped_s(&test_link, 0.0529, 0.0371) < 0.0529);
}

/* Kernels that hold a fifth of the SMs: 10 s of them beside 20 s of
   compute leave the compute 8 s done when they end, so it ends at 22 s
   and the overlap adds 2 s plus the link's slowdown of the 10 s hidden;
   30 s of them outlast the compute's 25 s at four fifths, which then adds
   the 5 s lost, the 5 s that stick out and the slowdown of 25 s. */
static void test_overlapped_sms(void **state)
{
	(void)state;
	assert_rel(comm_overlapped_sms_s(&test_link, 10.0, 20.0, 0.2),
		   2.0 + 0.137 * 10.0, 1e-14);
	assert_rel(comm_overlapped_sms_s(&test_link, 30.0, 20.0, 0.2),
		   5.0 + 5.0 + 0.137 * 25.0, 1e-14);
	/* kernels that hold no SMs: comm_overlapped_s */
	assert_rel(comm_overlapped_sms_s(&test_link, 10.0, 20.0, 0.0),
		   comm_overlapped_s(&test_link, 10.0, 20.0), 1e-15);
	/* nothing to overlap */
	assert_rel(comm_overlapped_sms_s(&test_link, 0.0, 20.0, 0.2), 0.0,
		   0.0);
	assert_rel(comm_overlapped_sms_s(&test_link, 10.0, 0.0, 0.2), 10.0,
		   1e-15);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_allreduce),
		cmocka_unit_test(test_trivial),
		cmocka_unit_test(test_gather_scatter),
		cmocka_unit_test(test_latency_grows),
		cmocka_unit_test(test_p2p),
		cmocka_unit_test(test_links),
		cmocka_unit_test(test_link_constants),
		cmocka_unit_test(test_nvlink_sharp),
		cmocka_unit_test(test_comm_link),
		cmocka_unit_test(test_comm_eff),
		cmocka_unit_test(test_alltoall),
		cmocka_unit_test(test_overlapped),
		cmocka_unit_test(test_overlapped_sms),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
