// No annotations here: fluxion-gen copies this file as it is.
double twice(double x) { return 2 * x; }
