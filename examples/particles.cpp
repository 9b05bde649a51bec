// A small particle system written in plain C++: a Vec3 class with
// constructors and operators, a Particle with an energy() const method, and
// a velocity-Verlet integrator that moves particles through their own
// methods. Fluxion differentiates the energy after a few steps with respect
// to the initial positions and the spring constant; the gradient is checked
// against finite differences with fluxion::check_gradient.
#include <fluxion/check.hpp>
#include <fluxion/fluxion.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>

struct Vec3 {
  double x, y, z;

  Vec3 operator+(const Vec3 &o) const { return {x + o.x, y + o.y, z + o.z}; }
  Vec3 operator-(const Vec3 &o) const { return {x - o.x, y - o.y, z - o.z}; }
  Vec3 operator*(double s) const { return {x * s, y * s, z * s}; }
  Vec3 &operator+=(const Vec3 &o) {
    x += o.x;
    y += o.y;
    z += o.z;
    return *this;
  }
  double dot(const Vec3 &o) const { return x * o.x + y * o.y + z * o.z; }
  double norm() const { return std::sqrt(dot(*this)); }
};

struct Particle {
  Vec3 pos, vel;
  double mass;
  int id;

  double kinetic() const { return 0.5 * mass * vel.dot(vel); }
  void drift(double dt) { pos += vel * dt; }
  void kick(const Vec3 &force, double dt) { vel += force * (dt / mass); }
};

const int N = 4;

// Springs of rest length 1 between neighbours on a ring.
Vec3 springForce(const Particle &a, const Particle &b, double k) {
  Vec3 d = b.pos - a.pos;
  double len = d.norm();
  return d * (k * (len - 1) / len);
}

double potential(const Particle *ps, double k) {
  double e = 0;
  for (int i = 0; i < N; ++i) {
    double l = (ps[(i + 1) % N].pos - ps[i].pos).norm() - 1;
    e += 0.5 * k * l * l;
  }
  return e;
}

// Total energy after `steps` velocity-Verlet steps from the state in ps,
// differentiated with respect to the particles and the spring constant.
[[fluxion::grad("ps", "k")]] double energyAfter(const Particle *ps, double k, double dt,
                                     int steps) {
  Particle p[N];
  for (int i = 0; i < N; ++i)
    p[i] = ps[i];
  for (int s = 0; s < steps; ++s) {
    for (int i = 0; i < N; ++i) {
      Particle &me = p[i];
      Vec3 f = springForce(me, p[(i + 1) % N], k) +
               springForce(me, p[(i + N - 1) % N], k);
      me.kick(f, 0.5 * dt);
      me.drift(dt);
    }
  }
  double e = potential(p, k);
  for (int i = 0; i < N; ++i)
    e += p[i].kinetic();
  return e;
}

int main() {
  Particle ps[N] = {{{0, 0, 0}, {0.1, 0, 0}, 1.0, 0},
                    {{1.1, 0, 0}, {0, 0.2, 0}, 2.0, 1},
                    {{1.0, 1.2, 0}, {0, 0, 0.1}, 1.5, 2},
                    {{0, 0.9, 0.1}, {-0.1, 0, 0}, 0.5, 3}};
  double k = 3.0, dt = 0.01;
  int steps = 20;

  Particle dps[N] = {};
  double dk = 0;
  double e = energyAfter_grad(ps, k, dt, steps, dps, &dk);
  std::printf("energy after %d steps: %.10f\n", steps, e);
  for (int i = 0; i < N; ++i)
    std::printf("dE/dpos[%d] = (% .6f, % .6f, % .6f)   dE/dmass[%d] = % .6f\n",
                i, dps[i].pos.x, dps[i].pos.y, dps[i].pos.z, i, dps[i].mass);
  std::printf("dE/dk = % .6f\n", dk);

  // Every entry against central finite differences (dt is held fixed).
  auto report = fluxion::check_gradient(energyAfter, energyAfter_grad,
                                        fluxion::span(ps, N), k,
                                        fluxion::constant(dt), steps);
  std::cout << report;
  std::printf("%s\n", report.ok() ? "gradient matches finite differences"
                                  : "MISMATCH");
  return report.ok() ? 0 : 1;
}
