// A library header (-isystem) declaring functions whose bodies are in a
// compiled library: they need custom derivatives.
#ifndef OPAQUE_H
#define OPAQUE_H
namespace opaque {
double bessel(double order, double x);
double weighted(const double *w, int n, double scale);
} // namespace opaque
#endif
