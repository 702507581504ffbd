/* config.c: the global run configuration and its command line. */
#include <stdlib.h>
#include <string.h>
#include "graph.h"

Config g_cfg = {20, 16, 5, 75, 256, 100, 10, 5, 0.85, 1e-11, 0x5eed2024ULL};

void config_parse(int argc, char **argv) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const char *key = argv[i], *val = argv[i + 1];
    if (!strcmp(key, "-scale"))
      g_cfg.scale = atoi(val);
    else if (!strcmp(key, "-ef"))
      g_cfg.edge_factor = atoi(val);
    else if (!strcmp(key, "-sinks"))
      g_cfg.sink_percent = atoi(val);
    else if (!strcmp(key, "-local"))
      g_cfg.local_percent = atoi(val);
    else if (!strcmp(key, "-window"))
      g_cfg.window = atoi(val);
    else if (!strcmp(key, "-iters"))
      g_cfg.max_iter = atoi(val);
    else if (!strcmp(key, "-topk"))
      g_cfg.topk = atoi(val);
    else if (!strcmp(key, "-print"))
      g_cfg.print_every = atoi(val);
    else if (!strcmp(key, "-d"))
      g_cfg.damping = atof(val);
    else if (!strcmp(key, "-tol"))
      g_cfg.tol = atof(val);
    else if (!strcmp(key, "-seed"))
      g_cfg.seed = strtoull(val, NULL, 0);
  }
  if (g_cfg.scale < 4)
    g_cfg.scale = 4;
  if (g_cfg.scale > 28)
    g_cfg.scale = 28;
  if (g_cfg.edge_factor < 1)
    g_cfg.edge_factor = 1;
  if (g_cfg.window < 1)
    g_cfg.window = 1;
  if (g_cfg.max_iter < 1)
    g_cfg.max_iter = 1;
  if (g_cfg.topk < 1)
    g_cfg.topk = 1;
  if (g_cfg.topk > 64)
    g_cfg.topk = 64;
  if (g_cfg.print_every < 1)
    g_cfg.print_every = 1;
}
