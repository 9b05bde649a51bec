// A class defined in a header: fluxion-gen cannot add members to it.
struct InHeader {
  static double sq(double v) { return v * v; }
};
