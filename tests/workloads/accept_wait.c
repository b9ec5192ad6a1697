// SPDX-License-Identifier: GPL-2.0
/*
 * accept_wait: a server thread blocked in accept(), as a server waits for
 * its next client, for the off-CPU tests of waits that began before the
 * profiler did.
 *
 *   accept_wait PORTFILE [SECONDS]
 *
 * listens on a loopback port the kernel picks, writes its number to
 * PORTFILE, and runs serve() -> accept_one() in a thread: each accept()
 * waits for a client, answers it with a byte, and waits again. The main
 * thread sleeps in pthread_join(). Ends after SECONDS (default 30).
 * Built as users build their programs: -O2, no frame pointers, libc.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "frames.h"

static int listener;

KEEP_FRAME int accept_one(void)
{
	int fd = accept(listener, NULL, NULL);

	if (fd >= 0) {
		(void)!write(fd, "y", 1);
		close(fd);
	}
	KEEP_CALLER();
	return fd;
}

KEEP_FRAME void *serve(void *arg)
{
	(void)arg;
	for (;;)
		if (accept_one() < 0)
			break;
	return NULL;
}

static void *stop_after(void *arg)
{
	sleep((unsigned int)(long)arg);
	exit(0);
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	pthread_t server, timer;
	FILE *f;

	if (argc < 2)
		return 2;
	listener = socket(AF_INET, SOCK_STREAM, 0);
	if (listener < 0 || bind(listener, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(listener, 8) || getsockname(listener, (struct sockaddr *)&a, &len))
		return 1;
	f = fopen(argv[1], "w");
	if (!f)
		return 1;
	fprintf(f, "%d\n", ntohs(a.sin_port));
	fclose(f);
	pthread_create(&timer, NULL, stop_after, (void *)(long)(argc > 2 ? atoi(argv[2]) : 30));
	pthread_create(&server, NULL, serve, NULL);
	pthread_join(server, NULL);
	return 0;
}
