/*
 * The stat floor without any runtime: stat() every path of a list, on one thread and on two,
 * timed in-process. Shows what the identity check's system calls alone cost on a machine
 * (scripts/bench/relevance.md); stat-floor.ts is the same floor in Bun. relevance-turns.ts builds
 * both and writes the lists of one identity check to
 * $TMPDIR/lemon-bench-relevance/turns/check-paths-<scale>.txt (relevance.ts its SKILL.md lists
 * to $TMPDIR/lemon-bench-relevance/floor/paths-<scale>.txt).
 *
 *   cc -O2 -pthread -o "$TMPDIR/stat-floor" scripts/bench/stat-floor.c
 *   "$TMPDIR/stat-floor" $TMPDIR/lemon-bench-relevance/turns/check-paths-11k.txt
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static char **paths;
static size_t count;

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

struct range { size_t from, to; };

static void *stat_range(void *arg) {
  struct range *r = arg;
  struct stat st;
  for (size_t i = r->from; i < r->to; i++) stat(paths[i], &st);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: stat-floor PATH-LIST\n");
    return 2;
  }
  FILE *f = fopen(argv[1], "r");
  if (!f) {
    perror(argv[1]);
    return 1;
  }
  size_t cap = 1024;
  paths = malloc(cap * sizeof *paths);
  char line[8192];
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = 0;
    if (count == cap) paths = realloc(paths, (cap *= 2) * sizeof *paths);
    paths[count++] = strdup(line);
  }
  fclose(f);
  for (int rep = 0; rep < 3; rep++) {
    double t = now_ms();
    struct range all = {0, count};
    stat_range(&all);
    double one = now_ms() - t;
    t = now_ms();
    pthread_t th[2];
    struct range half[2] = {{0, count / 2}, {count / 2, count}};
    for (int k = 0; k < 2; k++) pthread_create(&th[k], NULL, stat_range, &half[k]);
    for (int k = 0; k < 2; k++) pthread_join(th[k], NULL);
    printf("%zu paths: one thread %.2f ms, two threads %.2f ms\n", count, one, now_ms() - t);
  }
  return 0;
}
