// Calls derivatives generated in another translation unit, through the
// header fluxion-gen --declarations wrote (given with -include).
#include <cstdio>

int main() {
  double dm = 0, dv = 0;
  double e = phys::kinetic_grad(1, 3, &dm, &dv);
  std::printf("kinetic %g %g %g\n", e, dm, dv);
  std::printf("spring %g\n", phys::spring_jvp(2, 3, 0, 1));
}
