#include <vector>
class Grid {
public:
    double *cells;
    int n;
    double total;
    void relax(double w) {
        for (int i = 1; i < n; i++)
            cells[i] = w * cells[i - 1];
        total = cells[n - 1];
    }
};

int main() {
    Grid g;
    double buf[8] = {1};
    g.cells = buf;
    g.n = 8;
    g.relax(0.5);
    return (int)g.total;
}
