// hydrocxx: a two-component vector value type. Its copy constructor,
// assignment and destructor are written out (as many C++ codes do), so it
// is not trivially copyable and functions return it through memory.
#ifndef HYDROCXX_VEC2_HH
#define HYDROCXX_VEC2_HH

#include <cmath>

struct double2 {
  double x, y;

  double2() : x(0.), y(0.) {}
  double2(const double xx, const double yy) : x(xx), y(yy) {}
  double2(const double2 &v2) : x(v2.x), y(v2.y) {}
  ~double2() {}

  double2 &operator=(const double2 &v2) {
    x = v2.x;
    y = v2.y;
    return *this;
  }
  double2 &operator+=(const double2 &v2) {
    x += v2.x;
    y += v2.y;
    return *this;
  }
  double2 &operator-=(const double2 &v2) {
    x -= v2.x;
    y -= v2.y;
    return *this;
  }
  double2 &operator*=(const double r) {
    x *= r;
    y *= r;
    return *this;
  }
  double2 &operator/=(const double r) {
    x /= r;
    y /= r;
    return *this;
  }
};

inline double2 operator+(const double2 &v1, const double2 &v2) {
  return double2(v1.x + v2.x, v1.y + v2.y);
}
inline double2 operator-(const double2 &v1, const double2 &v2) {
  return double2(v1.x - v2.x, v1.y - v2.y);
}
inline double2 operator-(const double2 &v) { return double2(-v.x, -v.y); }
inline double2 operator*(const double2 &v, const double r) { return double2(v.x * r, v.y * r); }
inline double2 operator*(const double r, const double2 &v) { return double2(v.x * r, v.y * r); }
inline double2 operator/(const double2 &v, const double r) { return double2(v.x / r, v.y / r); }

inline double dot(const double2 &v1, const double2 &v2) { return v1.x * v2.x + v1.y * v2.y; }
inline double cross(const double2 &v1, const double2 &v2) { return v1.x * v2.y - v1.y * v2.x; }
inline double length2(const double2 &v) { return v.x * v.x + v.y * v.y; }
inline double length(const double2 &v) { return std::sqrt(v.x * v.x + v.y * v.y); }
inline double2 rotateCCW(const double2 &v) { return double2(-v.y, v.x); }

#endif
