// SPDX-License-Identifier: GPL-2.0
/*
 * cqn_hostile: a userspace rdma_cm peer of a cqnotify server that breaks the
 * protocol on purpose, for the hostile suite's tests
 * (Documentation/testing.rst). One mode per run:
 *
 *   oversize  COUNT connections, each sends one SIZE-byte message (more than
 *             the server's msg_size): each must be dropped by the server
 *             (the send fails, the server disconnects) and nothing echoed.
 *   empty     one connection, COUNT zero-length messages: each must come
 *             back as a zero-length echo.
 *   lying     one connection, COUNT SIZE-byte messages whose cqnotify header
 *             claims more bytes than they carry: each must come back
 *             verbatim (SIZE bytes, the same bytes, nothing more).
 *   flood     CONNS connections at once (past max_conns): each must be
 *             accepted or rejected, none left hanging; each accepted one
 *             must echo a message; all are held HOLD ms, then closed.
 *
 * And one mode that is a server for a cqnotify client, whose echoes are
 * intact (length, magic and checksum right) but lie about the order:
 *
 *   serve     listen on ADDR:PORT, accept one connection and echo what it
 *             sends until it disconnects, lying (-L) about one message in
 *             every EVERY (-e), at most COUNT (-n) times:
 *               none     no lie: a faithful echo (the positive control)
 *               seq      the echo carries the next sequence number (the
 *                        checksum recomputed): the client must see a gap
 *               dup      the echo is sent twice
 *               reorder  the echo waits for the next message's and goes
 *                        after it
 *             Prints "cqn_hostile: listening on ADDR:PORT" once it is.
 *
 * Prints one line "cqn_hostile: mode=... key=value ..." with what happened.
 * Exit status: 0 the server behaved (serve: a connection was served until
 * its peer left), 1 it did not, 2 bad usage, 3 this peer could not do its
 * part (no connection, verbs failure).
 */
#include <assert.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netdb.h>
#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdnoreturn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <rdma/rdma_cma.h>

/* include/cqn_msg.h, for the header layout and magic, outside the kernel. */
typedef uint32_t u32;
typedef uint64_t u64;
/*
 * The header's fields are naturally aligned, so it has the same layout
 * without __packed (checked below); C11 says what __noreturn says.
 */
#define __packed
#define __noreturn	noreturn
#include "cqn_msg.h"

static_assert(sizeof(struct cqn_msg_hdr) == 32, "struct cqn_msg_hdr is 32 bytes on the wire");

/* The server's largest msg_size (include/cqn_config.h): echoes fit. */
#define HOSTILE_RECV_MAX	(1024 * 1024)
/* The message each accepted flood connection must get back. */
#define HOSTILE_PING_LEN	64
#define HOSTILE_RESOLVE_MS	2000
/* WR ids: which half of the buffer a completion is for. */
#define HOSTILE_WR_SEND		1
#define HOSTILE_WR_RECV		2
/* serve: receive buffers posted (above any client's queue_depth we run). */
#define SERVE_RECVS		64
/* serve: send buffers; every echo is copied into one. */
#define SERVE_SENDS		128
/* serve: how long a held (reorder) echo waits for the next message. */
#define SERVE_HOLD_MS		1000
/* Seed of the message checksum (src/msg.c, CQN_MSG_CSUM_SEED). */
#define SERVE_CSUM_SEED		0xffffffffu

enum hstate { H_CONNECTING, H_ESTABLISHED, H_REJECTED, H_FAILED };

struct hconn {
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	char *buf;		/* send area, then receive area */
	size_t send_len;	/* size of the send area */
	size_t recv_len;	/* size of the receive area */
	enum hstate state;
	int status;		/* the event status of a rejection or failure */
	bool has_qp;
	bool disconnected;	/* dropped by the server once established */
	bool dropped_by_rej;	/* ... with a reject rather than a disconnect */
};

static struct rdma_event_channel *ch;
static struct sockaddr_storage dst;
static int timeout_ms = 30000;
static bool verbose;

static __noreturn void die(int rc, const char *what)
{
	fprintf(stderr, "cqn_hostile: %s: %s\n", what, strerror(errno));
	exit(rc);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* The QP, CQ and buffers of a connection whose route is resolved. */
static int hconn_setup(struct hconn *c)
{
	struct ibv_qp_init_attr attr = {};

	c->pd = ibv_alloc_pd(c->id->verbs);
	if (!c->pd)
		return -1;
	c->cq = ibv_create_cq(c->id->verbs, 16, NULL, NULL, 0);
	if (!c->cq)
		return -1;
	attr.send_cq = c->cq;
	attr.recv_cq = c->cq;
	attr.cap.max_send_wr = 4;
	attr.cap.max_recv_wr = 4;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = 1;
	attr.qp_type = IBV_QPT_RC;
	attr.sq_sig_all = 1;
	if (rdma_create_qp(c->id, c->pd, &attr))
		return -1;
	c->has_qp = true;
	c->buf = calloc(1, c->send_len + c->recv_len);
	if (!c->buf)
		return -1;
	c->mr = ibv_reg_mr(c->pd, c->buf, c->send_len + c->recv_len, IBV_ACCESS_LOCAL_WRITE);
	return c->mr ? 0 : -1;
}

static void hconn_event(struct rdma_cm_event *ev)
{
	struct hconn *c = ev->id->context;
	struct rdma_conn_param param = {
		.retry_count = 7,
		.rnr_retry_count = 7,
	};

	if (verbose)
		fprintf(stderr, "cqn_hostile: %p: %s (%d)\n", (void *)c,
			rdma_event_str(ev->event), ev->status);
	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		if (rdma_resolve_route(c->id, HOSTILE_RESOLVE_MS))
			c->state = H_FAILED;
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		if (hconn_setup(c) || rdma_connect(c->id, &param)) {
			perror("cqn_hostile: connection setup");
			c->state = H_FAILED;
		}
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		c->state = H_ESTABLISHED;
		break;
	case RDMA_CM_EVENT_REJECTED:
		/*
		 * Once established here, a reject means the server dropped the
		 * connection before its own side saw it established (its CM
		 * rejects instead of disconnecting): dropped all the same.
		 */
		if (c->state == H_ESTABLISHED) {
			c->disconnected = true;
			c->dropped_by_rej = true;
			break;
		}
		c->state = H_REJECTED;
		c->status = ev->status;
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		c->disconnected = true;
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
		c->state = H_FAILED;
		c->status = ev->status;
		break;
	default:
		break;
	}
}

/* Handle the rdma_cm events that arrive within @ms. */
static void pump_events(int ms)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;

	if (poll(&pfd, 1, ms) <= 0)
		return;
	while (!rdma_get_cm_event(ch, &ev)) {
		hconn_event(ev);
		rdma_ack_cm_event(ev);
	}
}

/* Connect @n connections at once; each ends established, rejected or failed. */
static int connect_all(struct hconn *c, int n, size_t send_len, size_t recv_len)
{
	long long end = now_ms() + timeout_ms;
	int i, pending;

	for (i = 0; i < n; i++) {
		c[i].send_len = send_len;
		c[i].recv_len = recv_len;
		c[i].state = H_CONNECTING;
		if (rdma_create_id(ch, &c[i].id, &c[i], RDMA_PS_TCP))
			die(3, "rdma_create_id");
		if (rdma_resolve_addr(c[i].id, NULL, (struct sockaddr *)&dst, HOSTILE_RESOLVE_MS))
			die(3, "rdma_resolve_addr");
	}
	do {
		pump_events(50);
		for (pending = 0, i = 0; i < n; i++)
			pending += c[i].state == H_CONNECTING;
	} while (pending && now_ms() < end);
	return pending;
}

static void hconn_destroy(struct hconn *c)
{
	if (c->state == H_ESTABLISHED && !c->disconnected)
		rdma_disconnect(c->id);
	if (c->has_qp)
		rdma_destroy_qp(c->id);
	if (c->mr)
		ibv_dereg_mr(c->mr);
	if (c->cq)
		ibv_destroy_cq(c->cq);
	if (c->pd)
		ibv_dealloc_pd(c->pd);
	if (c->id)
		rdma_destroy_id(c->id);
	free(c->buf);
	memset(c, 0, sizeof(*c));
}

static int post_recv(struct hconn *c)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)c->buf + c->send_len,
		.length = c->recv_len,
		.lkey = c->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = HOSTILE_WR_RECV, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_recv(c->id->qp, &wr, &bad);
}

static int post_send(struct hconn *c, size_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)c->buf,
		.length = len,
		.lkey = c->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = HOSTILE_WR_SEND,
		.sg_list = &sge,
		.num_sge = len ? 1 : 0,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr *bad;

	return ibv_post_send(c->id->qp, &wr, &bad);
}

/*
 * Send @len bytes of the send area with a receive posted, and wait (up to
 * @ms) for both completions. Each status is set, or left -1 when its
 * completion did not come; *@got is the echo's length.
 */
static void exchange(struct hconn *c, size_t len, int ms, int *send_st, int *recv_st,
		     uint32_t *got)
{
	long long end = now_ms() + ms;
	struct ibv_wc wc;

	*send_st = -1;
	*recv_st = -1;
	*got = 0;
	if (post_recv(c) || post_send(c, len)) {
		perror("cqn_hostile: posting");
		*send_st = IBV_WC_GENERAL_ERR;
		return;
	}
	while ((*send_st < 0 || *recv_st < 0) && now_ms() < end) {
		if (ibv_poll_cq(c->cq, 1, &wc) <= 0) {
			sleep_ms(1);
			continue;
		}
		if (wc.wr_id == HOSTILE_WR_SEND) {
			*send_st = wc.status;
		} else {
			*recv_st = wc.status;
			*got = wc.byte_len;
		}
		/* After a failed send the receive can only flush: stop waiting. */
		if (*send_st > 0 && *recv_st < 0)
			end = now_ms() + 1000;
	}
}

static const char *st_name(int st)
{
	return st < 0 ? "none" : ibv_wc_status_str(st);
}

/* One connection, established, or exit 3. */
static void connect_one(struct hconn *c, size_t send_len)
{
	if (connect_all(c, 1, send_len, HOSTILE_RECV_MAX) || c->state != H_ESTABLISHED) {
		fprintf(stderr, "cqn_hostile: connecting failed (%s, status %d)\n",
			c->state == H_REJECTED ? "rejected" : "no connection", c->status);
		exit(3);
	}
}

static int mode_oversize(int count, size_t size)
{
	int i, dropped = 0, by_rej = 0, send_failed = 0, echoed = 0, first_st = -1;

	for (i = 0; i < count; i++) {
		struct hconn c = {};
		long long end;
		int send_st, recv_st;
		uint32_t got;

		connect_one(&c, size);
		memset(c.buf, 0x5a ^ i, size);
		exchange(&c, size, timeout_ms, &send_st, &recv_st, &got);
		if (first_st < 0)
			first_st = send_st;
		send_failed += send_st > 0;
		echoed += recv_st == IBV_WC_SUCCESS;
		end = now_ms() + timeout_ms;
		while (!c.disconnected && now_ms() < end)
			pump_events(50);
		dropped += c.disconnected;
		by_rej += c.dropped_by_rej;
		if (verbose || !c.disconnected || send_st <= 0)
			fprintf(stderr, "cqn_hostile: oversize %d: send %s, echo %s, %s\n", i,
				st_name(send_st), st_name(recv_st),
				!c.disconnected ? "still connected" :
				c.dropped_by_rej ? "rejected by the server after establishment" :
				"disconnected by the server");
		hconn_destroy(&c);
	}
	printf("cqn_hostile: mode=oversize size=%zu tried=%d dropped=%d dropped_by_reject=%d",
	       size, count, dropped, by_rej);
	printf(" send_failed=%d echoed=%d send_status=\"%s\"\n", send_failed, echoed,
	       st_name(first_st));
	return dropped == count && !echoed ? 0 : 1;
}

/* Message @i of lying mode: a header claiming more than @size bytes. */
static void make_lie(char *buf, size_t size, int i)
{
	static const uint32_t extra[] = { 1, 4096, 1 << 20, 0 };
	struct cqn_msg_hdr *hdr = (struct cqn_msg_hdr *)buf;
	uint32_t claim = extra[i % 4] ? size + extra[i % 4] : 0xffffffff;
	size_t j;

	for (j = 0; j < size; j++)
		buf[j] = (char)(i + j * 13);
	hdr->magic = htobe32(CQN_MSG_MAGIC);
	hdr->len = htobe32(claim);
	hdr->seq = htobe64(i);
	hdr->send_ns = 0;
	hdr->csum = htobe32(0xdeadbeef ^ i);
	hdr->reserved = 0;
}

/* empty and lying: every message must come back verbatim, at its length. */
static int mode_echo(bool lying, int count, size_t size)
{
	struct hconn c = {};
	int i, verbatim = 0, bad = 0;

	if (lying && size < CQN_MSG_HDR_LEN) {
		fprintf(stderr, "cqn_hostile: lying needs -s >= %zu\n", CQN_MSG_HDR_LEN);
		return 2;
	}
	if (!lying)
		size = 0;
	connect_one(&c, size ? size : 1);
	for (i = 0; i < count && !c.disconnected; i++) {
		int send_st, recv_st;
		uint32_t got;

		if (lying)
			make_lie(c.buf, size, i);
		/* Stale bytes in the receive area would show an over-long echo. */
		memset(c.buf + c.send_len, 0xee, size + 64);
		exchange(&c, size, timeout_ms, &send_st, &recv_st, &got);
		if (send_st == IBV_WC_SUCCESS && recv_st == IBV_WC_SUCCESS && got == size &&
		    !memcmp(c.buf, c.buf + c.send_len, size)) {
			verbatim++;
			continue;
		}
		bad++;
		fprintf(stderr, "cqn_hostile: %s message %d: send %s, echo %s, %u of %zu bytes%s\n",
			lying ? "lying" : "empty", i, st_name(send_st), st_name(recv_st), got,
			size, recv_st == IBV_WC_SUCCESS && got == size ? ", bytes differ" : "");
		if (send_st != IBV_WC_SUCCESS || recv_st != IBV_WC_SUCCESS)
			break;
	}
	pump_events(0);
	printf("cqn_hostile: mode=%s size=%zu tried=%d verbatim=%d bad=%d disconnected=%d\n",
	       lying ? "lying" : "empty", size, i, verbatim, bad, c.disconnected);
	hconn_destroy(&c);
	return verbatim == count && !bad ? 0 : 1;
}

static int mode_flood(int conns, int hold_ms)
{
	struct hconn *c = calloc(conns, sizeof(*c));
	int i, pending, accepted = 0, rejected = 0, failed = 0, served = 0, dropped = 0;
	long long end;

	if (!c)
		die(3, "calloc");
	pending = connect_all(c, conns, HOSTILE_PING_LEN, HOSTILE_PING_LEN);
	for (i = 0; i < conns; i++) {
		int send_st, recv_st;
		uint32_t got;

		switch (c[i].state) {
		case H_ESTABLISHED:
			accepted++;
			memset(c[i].buf, 'a' + i % 26, HOSTILE_PING_LEN);
			exchange(&c[i], HOSTILE_PING_LEN, timeout_ms, &send_st, &recv_st, &got);
			if (recv_st == IBV_WC_SUCCESS && got == HOSTILE_PING_LEN &&
			    !memcmp(c[i].buf, c[i].buf + HOSTILE_PING_LEN, HOSTILE_PING_LEN))
				served++;
			else
				fprintf(stderr,
					"cqn_hostile: flood connection %d: send %s, echo %s\n",
					i, st_name(send_st), st_name(recv_st));
			break;
		case H_REJECTED:
			rejected++;
			break;
		case H_FAILED:
			failed++;
			fprintf(stderr, "cqn_hostile: flood connection %d failed (status %d)\n",
				i, c[i].status);
			break;
		default:
			break;
		}
	}
	/* Hold them: the accepted ones must stay up. */
	end = now_ms() + hold_ms;
	while (now_ms() < end)
		pump_events(50);
	for (i = 0; i < conns; i++) {
		dropped += c[i].disconnected;
		hconn_destroy(&c[i]);
	}
	free(c);
	printf("cqn_hostile: mode=flood conns=%d accepted=%d rejected=%d failed=%d",
	       conns, accepted, rejected, failed);
	printf(" unsettled=%d served=%d dropped=%d\n", pending, served, dropped);
	return !failed && !pending && served == accepted && !dropped ? 0 : 1;
}

/* The kernel's crc32_le(): reflected CRC-32, no final inversion. */
static uint32_t crc32_le(uint32_t crc, const unsigned char *p, size_t len)
{
	int i;

	while (len--) {
		crc ^= *p++;
		for (i = 0; i < 8; i++)
			crc = (crc >> 1) ^ (crc & 1 ? 0xedb88320u : 0);
	}
	return crc;
}

/* cqn_msg_csum() of src/msg.c: len, seq, send_ns, reserved and the payload. */
static uint32_t msg_csum(const unsigned char *buf, size_t len)
{
	const struct cqn_msg_hdr *hdr = (const struct cqn_msg_hdr *)buf;
	uint32_t crc;

	crc = crc32_le(SERVE_CSUM_SEED, (const unsigned char *)&hdr->len,
		       offsetof(struct cqn_msg_hdr, csum) - offsetof(struct cqn_msg_hdr, len));
	crc = crc32_le(crc, (const unsigned char *)&hdr->reserved, sizeof(hdr->reserved));
	return crc32_le(crc, buf + CQN_MSG_HDR_LEN, len - CQN_MSG_HDR_LEN);
}

/*
 * Make @buf (@len bytes, a cqnotify client's message) the intact message
 * one sequence number later: a new header checksum (left 0 when the client
 * sends none), or for a message too short for a header the bytes
 * src/msg.c derives from the sequence number. False if it is no cqnotify
 * message.
 */
static bool msg_next_seq(unsigned char *buf, size_t len)
{
	struct cqn_msg_hdr *hdr = (struct cqn_msg_hdr *)buf;
	uint64_t seq = 0;
	size_t i;

	if (len < CQN_MSG_HDR_LEN) {
		for (i = 0; i < len && i < 8; i++)
			seq |= (uint64_t)buf[i] << (8 * i);
		seq++;
		for (i = 0; i < len; i++)
			buf[i] = (unsigned char)(seq >> (8 * (i % 8))) ^ (unsigned char)(i / 8);
		return true;
	}
	if (be32toh(hdr->magic) != CQN_MSG_MAGIC || be32toh(hdr->len) != len)
		return false;
	hdr->seq = htobe64(be64toh(hdr->seq) + 1);
	if (hdr->csum)
		hdr->csum = htobe32(msg_csum(buf, len));
	return true;
}

enum lie { LIE_NONE, LIE_SEQ, LIE_DUP, LIE_REORDER };
static const char *const lie_names[] = { "none", "seq", "dup", "reorder" };

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* serve: the one connection, its buffers and what it did. */
struct serve {
	struct rdma_cm_id *listen;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	unsigned char *buf;	/* SERVE_RECVS receive, then SERVE_SENDS send buffers */
	size_t size;		/* of each buffer */
	int free_send[SERVE_SENDS];
	int nfree;
	int held;		/* send buffer of the echo held back, or -1 */
	size_t held_len;
	long long held_since;
	bool established;
	bool disconnected;
	bool failed;
	/* what happened */
	long received, echoed, lies, hold_timeouts, send_errors, posting_errors;
	long not_cqn;
};

static unsigned char *serve_rbuf(struct serve *sv, int i)
{
	return sv->buf + (size_t)i * sv->size;
}

static unsigned char *serve_sbuf(struct serve *sv, int i)
{
	return sv->buf + (size_t)(SERVE_RECVS + i) * sv->size;
}

static int serve_post_recv(struct serve *sv, int i)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)serve_rbuf(sv, i),
		.length = sv->size,
		.lkey = sv->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_recv(sv->id->qp, &wr, &bad);
}

/* Post send buffer @i (@len bytes); wr_id SERVE_RECVS + i tells it apart. */
static void serve_post_send(struct serve *sv, int i, size_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)serve_sbuf(sv, i),
		.length = len,
		.lkey = sv->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = SERVE_RECVS + i,
		.sg_list = &sge,
		.num_sge = len ? 1 : 0,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr *bad;

	if (ibv_post_send(sv->id->qp, &wr, &bad)) {
		sv->posting_errors++;
		sv->free_send[sv->nfree++] = i;
		return;
	}
	sv->echoed++;
}

/* A copy of receive buffer @r (@len bytes) in a free send buffer, or -1. */
static int serve_copy(struct serve *sv, int r, size_t len)
{
	int i;

	if (!sv->nfree)
		return -1;
	i = sv->free_send[--sv->nfree];
	memcpy(serve_sbuf(sv, i), serve_rbuf(sv, r), len);
	return i;
}

/* A message arrived in receive buffer @r: echo it, or lie. */
static void serve_message(struct serve *sv, int r, size_t len, enum lie lie, long every,
			  long max_lies)
{
	bool lie_now = lie != LIE_NONE && sv->held < 0 && sv->lies < max_lies &&
		       (sv->received + 1) % every == 0;
	int a, b;

	sv->received++;
	a = serve_copy(sv, r, len);
	if (a < 0) {
		sv->posting_errors++;
		return;
	}
	if (sv->held >= 0) {
		/* reorder: this echo first, then the one held back. */
		serve_post_send(sv, a, len);
		serve_post_send(sv, sv->held, sv->held_len);
		sv->held = -1;
		return;
	}
	if (!lie_now) {
		serve_post_send(sv, a, len);
		return;
	}
	switch (lie) {
	case LIE_SEQ:
		if (!msg_next_seq(serve_sbuf(sv, a), len)) {
			sv->not_cqn++;
			serve_post_send(sv, a, len);
			return;
		}
		serve_post_send(sv, a, len);
		break;
	case LIE_DUP:
		serve_post_send(sv, a, len);
		b = serve_copy(sv, r, len);
		if (b < 0) {
			sv->posting_errors++;
			return;
		}
		serve_post_send(sv, b, len);
		break;
	case LIE_REORDER:
		sv->held = a;
		sv->held_len = len;
		sv->held_since = now_ms();
		break;
	default:
		break;
	}
	sv->lies++;
}

static void serve_cm_event(struct serve *sv, struct rdma_cm_event *ev)
{
	struct rdma_conn_param param = { .rnr_retry_count = 7 };
	struct ibv_qp_init_attr attr = {};
	int i;

	if (verbose)
		fprintf(stderr, "cqn_hostile: serve: %s (%d)\n", rdma_event_str(ev->event),
			ev->status);
	switch (ev->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		if (sv->id) {
			/* One connection only. */
			rdma_reject(ev->id, NULL, 0);
			break;
		}
		sv->id = ev->id;
		sv->pd = ibv_alloc_pd(sv->id->verbs);
		sv->cq = sv->pd ? ibv_create_cq(sv->id->verbs, SERVE_RECVS + SERVE_SENDS, NULL,
						NULL, 0) : NULL;
		if (!sv->cq)
			goto failed;
		attr.send_cq = sv->cq;
		attr.recv_cq = sv->cq;
		attr.cap.max_send_wr = SERVE_SENDS;
		attr.cap.max_recv_wr = SERVE_RECVS;
		attr.cap.max_send_sge = 1;
		attr.cap.max_recv_sge = 1;
		attr.qp_type = IBV_QPT_RC;
		if (rdma_create_qp(sv->id, sv->pd, &attr))
			goto failed;
		sv->buf = calloc(SERVE_RECVS + SERVE_SENDS, sv->size);
		if (!sv->buf)
			goto failed;
		sv->mr = ibv_reg_mr(sv->pd, sv->buf, (size_t)(SERVE_RECVS + SERVE_SENDS) * sv->size,
				    IBV_ACCESS_LOCAL_WRITE);
		if (!sv->mr)
			goto failed;
		for (i = 0; i < SERVE_SENDS; i++)
			sv->free_send[sv->nfree++] = i;
		for (i = 0; i < SERVE_RECVS; i++)
			if (serve_post_recv(sv, i))
				goto failed;
		if (rdma_accept(sv->id, &param))
			goto failed;
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		sv->established = true;
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		sv->disconnected = true;
		break;
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		sv->failed = true;
		break;
	default:
		break;
	}
	return;

failed:
	perror("cqn_hostile: serve: connection setup");
	sv->failed = true;
}

static void serve_poll(struct serve *sv, enum lie how, long every, long max_lies)
{
	struct ibv_wc wc[16];
	int n, i;

	n = ibv_poll_cq(sv->cq, 16, wc);
	for (i = 0; i < n; i++) {
		if (wc[i].wr_id >= SERVE_RECVS) {
			if (wc[i].status != IBV_WC_SUCCESS)
				sv->send_errors++;
			sv->free_send[sv->nfree++] = wc[i].wr_id - SERVE_RECVS;
			continue;
		}
		if (wc[i].status != IBV_WC_SUCCESS)
			continue;	/* flushed at the end */
		serve_message(sv, wc[i].wr_id, wc[i].byte_len, how, every, max_lies);
		if (serve_post_recv(sv, wc[i].wr_id))
			sv->posting_errors++;
	}
	if (sv->held >= 0 && now_ms() - sv->held_since > SERVE_HOLD_MS) {
		/* No next message to go before it: send it after all. */
		serve_post_send(sv, sv->held, sv->held_len);
		sv->held = -1;
		sv->hold_timeouts++;
	}
	if (!n)
		sleep_ms(1);
}

static int mode_serve(const char *addr, const char *port, enum lie lie, long every,
		      long max_lies, size_t size)
{
	struct serve sv = { .held = -1, .size = size };
	struct rdma_cm_event *ev;
	long long end = now_ms() + timeout_ms, left = 0;

	if (rdma_create_id(ch, &sv.listen, &sv, RDMA_PS_TCP))
		die(3, "rdma_create_id");
	if (rdma_bind_addr(sv.listen, (struct sockaddr *)&dst))
		die(3, "rdma_bind_addr");
	if (rdma_listen(sv.listen, 1))
		die(3, "rdma_listen");
	printf("cqn_hostile: listening on %s:%s\n", addr, port);
	fflush(stdout);
	/* Until the peer leaves (and a moment for the last completions). */
	while (!sv.failed && now_ms() < end && (!left || now_ms() < left)) {
		while (!rdma_get_cm_event(ch, &ev)) {
			serve_cm_event(&sv, ev);
			rdma_ack_cm_event(ev);
		}
		if (sv.disconnected && !left)
			left = now_ms() + 200;
		if (sv.cq)
			serve_poll(&sv, lie, every, max_lies);
		else
			sleep_ms(5);
	}
	printf("cqn_hostile: mode=serve lie=%s every=%ld established=%d disconnected=%d",
	       lie_names[lie], every, sv.established, sv.disconnected);
	printf(" received=%ld echoed=%ld lies=%ld hold_timeouts=%ld send_errors=%ld",
	       sv.received, sv.echoed, sv.lies, sv.hold_timeouts, sv.send_errors);
	printf(" posting_errors=%ld not_cqn=%ld\n", sv.posting_errors, sv.not_cqn);
	if (sv.id) {
		if (!sv.disconnected)
			rdma_disconnect(sv.id);
		rdma_destroy_qp(sv.id);
		if (sv.mr)
			ibv_dereg_mr(sv.mr);
		if (sv.cq)
			ibv_destroy_cq(sv.cq);
		if (sv.pd)
			ibv_dealloc_pd(sv.pd);
		rdma_destroy_id(sv.id);
	}
	free(sv.buf);
	rdma_destroy_id(sv.listen);
	if (!sv.established)
		return 3;
	return sv.disconnected && !sv.failed && !sv.posting_errors && !sv.not_cqn ? 0 : 1;
}

static __noreturn void usage(void)
{
	fprintf(stderr,
		"Usage: cqn_hostile -a ADDR [-p PORT] -m oversize|empty|lying|flood|serve [OPTIONS]\n"
		"  -n COUNT    messages (empty, lying) or connections (oversize); default 10;\n"
		"              serve: lies at most (default: no limit)\n"
		"  -s SIZE     message size: oversize (more than the server's msg_size),\n"
		"              lying (at least %zu); default 4097 and 64; serve: the\n"
		"              largest message taken (default 65536)\n"
		"  -L LIE      serve: none, seq, dup or reorder; default none\n"
		"  -e EVERY    serve: lie about one message in EVERY; default 10\n"
		"  -c CONNS    flood: connections opened at once; default 32\n"
		"  -H MS       flood: how long to hold them; default 500\n"
		"  -t MS       longest wait for any completion or event (serve: for the\n"
		"              whole run); default 30000\n"
		"  -v          log every event\n", CQN_MSG_HDR_LEN);
	exit(2);
}

int main(int argc, char **argv)
{
	const char *addr = NULL, *port = "7471", *mode = NULL;
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	struct addrinfo *ai;
	long size = -1, count = -1, conns = 32, hold = 500, every = 10;
	enum lie lie = LIE_NONE;
	int opt, rc;
	unsigned int i;

	while ((opt = getopt(argc, argv, "a:p:m:n:s:c:H:t:L:e:v")) != -1) {
		switch (opt) {
		case 'a':
			addr = optarg;
			break;
		case 'p':
			port = optarg;
			break;
		case 'm':
			mode = optarg;
			break;
		case 'n':
			count = strtol(optarg, NULL, 0);
			break;
		case 's':
			size = strtol(optarg, NULL, 0);
			break;
		case 'c':
			conns = strtol(optarg, NULL, 0);
			break;
		case 'H':
			hold = strtol(optarg, NULL, 0);
			break;
		case 't':
			timeout_ms = strtol(optarg, NULL, 0);
			break;
		case 'L':
			for (i = 0; i < ARRAY_SIZE(lie_names); i++)
				if (!strcmp(optarg, lie_names[i]))
					break;
			if (i == ARRAY_SIZE(lie_names))
				usage();
			lie = i;
			break;
		case 'e':
			every = strtol(optarg, NULL, 0);
			break;
		case 'v':
			verbose = true;
			break;
		default:
			usage();
		}
	}
	if (count == -1)
		count = strcmp(mode ? mode : "", "serve") ? 10 : 1L << 62;
	if (!addr || !mode || optind != argc || count < 1 || conns < 1 || hold < 0 ||
	    timeout_ms < 1 || size > HOSTILE_RECV_MAX * 16L || every < 1 ||
	    (lie == LIE_REORDER && every < 2))
		usage();
	if (getaddrinfo(addr, port, &hints, &ai)) {
		fprintf(stderr, "cqn_hostile: cannot resolve %s port %s\n", addr, port);
		return 2;
	}
	memcpy(&dst, ai->ai_addr, ai->ai_addrlen);
	freeaddrinfo(ai);
	ch = rdma_create_event_channel();
	if (!ch)
		die(3, "rdma_create_event_channel");
	if (fcntl(ch->fd, F_SETFL, fcntl(ch->fd, F_GETFL) | O_NONBLOCK))
		die(3, "fcntl");

	if (!strcmp(mode, "oversize"))
		rc = mode_oversize(count, size < 0 ? 4097 : size);
	else if (!strcmp(mode, "empty"))
		rc = mode_echo(false, count, 0);
	else if (!strcmp(mode, "lying"))
		rc = mode_echo(true, count, size < 0 ? 64 : size);
	else if (!strcmp(mode, "flood"))
		rc = mode_flood(conns, hold);
	else if (!strcmp(mode, "serve"))
		rc = mode_serve(addr, port, lie, every, count,
				size < 1 ? 65536 : size);
	else
		usage();
	rdma_destroy_event_channel(ch);
	return rc;
}
