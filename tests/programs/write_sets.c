/* Write sets and side-effect paths (blame-static/tests/golden.rs). */
struct vec { int n; double *array; };
struct app { struct vec x, b; double *coords; int cycle; double time; };

static void scale(struct vec *v, double a) {
  for (int i = 0; i < v->n; i++) v->array[i] *= a;
}

void kernel(struct app *app, double a) {
  scale(&app->x, a);
}

void gather(struct app *app, double *out, int n) {
  const double *c = app->coords;
  for (int i = 0; i < n; i++) out[i] = c[i];
}

void step(struct app *app, double a, double *tmp) {
  kernel(app, a);
  gather(app, tmp, 8);
  app->time += a;
  app->cycle++;
}

static int *cycle_of(struct app *app) { return &app->cycle; }

static double norm(const struct vec *v) {
  double s = 0;
  for (int i = 0; i < v->n; i++) s += v->array[i] * v->array[i];
  return s;
}

double advance(struct app *app, double a) {
  kernel(app, a);
  (*cycle_of(app))++;
  double e = norm(&app->x);
  return e;
}
