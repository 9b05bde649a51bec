[[fluxion::grad]] double f(double x) { return x * ; }
