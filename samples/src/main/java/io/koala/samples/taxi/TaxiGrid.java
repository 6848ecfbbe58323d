package io.koala.samples.taxi;

/**
 * The geometry of the Taxi workload: a grid of {@value #SIDE}×{@value #SIDE} cells of 500 m over
 * New York (the DEBS 2015 grid: cell {@code (0, 0)} has its north-west corner at {@link
 * #ORIGIN_LAT}, {@link #ORIGIN_LON}; {@code x} grows east, {@code y} south), and the dense key ids
 * of (route, vendor) pairs. Pure functions.
 *
 * <p>A key id {@code k} is vendor {@code k mod 2 + 1} on route {@code k / 2}. Routes are numbered
 * so that small ids lie near the hot spot (Midtown, cell {@code (HOT_X, HOT_Y)}): the cells around
 * it are numbered in a square spiral, and route {@code r} pairs the start and end cells of
 * Szudzik's pairing {@code r ↦ (i, j)}, so the routes with both cells among the first {@code n}
 * spiral cells are exactly routes {@code 0 .. n²-1}. Both numberings invert, so a trip's key id
 * follows from its coordinates ({@link #keyOf(TaxiTrip)}). Only cells within {@value #RINGS} cells
 * of the hot spot have a spiral number; {@link #MAX_KEYS} key ids exist.
 */
public final class TaxiGrid {
  /** Cells per side of the grid. */
  public static final int SIDE = 300;

  /** Latitude of the grid's north edge. */
  public static final double ORIGIN_LAT = 41.474937;

  /** Longitude of the grid's west edge. */
  public static final double ORIGIN_LON = -74.913585;

  /** Degrees of latitude per cell (500 m). */
  public static final double CELL_LAT = 0.004491556;

  /** Degrees of longitude per cell (500 m at this latitude). */
  public static final double CELL_LON = 0.005986;

  /** The hot spot's column: Midtown Manhattan. */
  public static final int HOT_X = 155;

  /** The hot spot's row: Midtown Manhattan. */
  public static final int HOT_Y = 160;

  /** Rings of the spiral around the hot spot that lie wholly inside the grid. */
  public static final int RINGS = 139;

  /** Cells with a spiral number. */
  public static final long SPIRAL_CELLS = (2L * RINGS + 1) * (2L * RINGS + 1);

  /** How many (route, vendor) key ids exist: two vendors on every pair of spiral cells. */
  public static final long MAX_KEYS = 2 * SPIRAL_CELLS * SPIRAL_CELLS;

  private TaxiGrid() {}

  /** The cell {@code y · SIDE + x} holding a point, or -1 if it is off the grid. */
  public static int cellOf(double lon, double lat) {
    double x = Math.floor((lon - ORIGIN_LON) / CELL_LON);
    double y = Math.floor((ORIGIN_LAT - lat) / CELL_LAT);
    if (!(x >= 0 && x < SIDE && y >= 0 && y < SIDE)) {
      return -1;
    }
    return (int) y * SIDE + (int) x;
  }

  /** Longitude of the point at fraction {@code u} in {@code [0, 1)} across {@code cell}. */
  public static double lonIn(int cell, double u) {
    return ORIGIN_LON + (cell % SIDE + u) * CELL_LON;
  }

  /** Latitude of the point at fraction {@code u} in {@code [0, 1)} down {@code cell}. */
  public static double latIn(int cell, double u) {
    return ORIGIN_LAT - (cell / SIDE + u) * CELL_LAT;
  }

  /**
   * The key id of {@code trip}: its route (pickup cell, dropoff cell) and vendor.
   *
   * @throws IllegalArgumentException when a cell is off the grid or outside the spiral
   */
  public static long keyOf(TaxiTrip trip) {
    return keyOf(
        cellOf(trip.pickupLon(), trip.pickupLat()),
        cellOf(trip.dropoffLon(), trip.dropoffLat()),
        trip.vendorId());
  }

  /**
   * The key id of route ({@code startCell}, {@code endCell}) of {@code vendor} (1 or 2).
   *
   * @throws IllegalArgumentException when a cell is off the grid or outside the spiral
   */
  public static long keyOf(int startCell, int endCell, int vendor) {
    if (vendor != 1 && vendor != 2) {
      throw new IllegalArgumentException("vendor must be 1 or 2, got " + vendor);
    }
    return 2 * pair(spiralOf(startCell), spiralOf(endCell)) + (vendor - 1);
  }

  /** The pickup cell of key id {@code key}. */
  public static int startCellOf(long key) {
    long route = checked(key) / 2;
    long m = floorSqrt(route);
    long t = route - m * m;
    return cellAt(t < m ? t : m);
  }

  /** The dropoff cell of key id {@code key}. */
  public static int endCellOf(long key) {
    long route = checked(key) / 2;
    long m = floorSqrt(route);
    long t = route - m * m;
    return cellAt(t < m ? m : t - m);
  }

  /** The vendor (1 or 2) of key id {@code key}. */
  public static int vendorOf(long key) {
    return (int) (checked(key) % 2) + 1;
  }

  /** The spiral number of {@code cell}: 0 for the hot spot, then ring by ring. */
  static long spiralOf(int cell) {
    if (cell < 0 || cell >= SIDE * SIDE) {
      throw new IllegalArgumentException("cell " + cell + " is off the grid");
    }
    int dx = cell % SIDE - HOT_X;
    int dy = cell / SIDE - HOT_Y;
    long d = Math.max(Math.abs(dx), Math.abs(dy));
    if (d > RINGS) {
      throw new IllegalArgumentException(
          "cell " + cell + " is " + d + " cells from the hot spot, beyond " + RINGS);
    }
    if (d == 0) {
      return 0;
    }
    long base = (2 * d - 1) * (2 * d - 1);
    long side;
    long off;
    if (dy == -d && dx < d) {
      side = 0;
      off = dx + d;
    } else if (dx == d && dy < d) {
      side = 1;
      off = dy + d;
    } else if (dy == d && dx > -d) {
      side = 2;
      off = d - dx;
    } else {
      side = 3;
      off = d - dy;
    }
    return base + side * 2 * d + off;
  }

  /** The cell of spiral number {@code i}. */
  static int cellAt(long i) {
    if (i < 0 || i >= SPIRAL_CELLS) {
      throw new IllegalArgumentException("spiral number " + i + " is outside the spiral");
    }
    int dx = 0;
    int dy = 0;
    if (i > 0) {
      int d = (int) ((floorSqrt(i) + 1) / 2);
      long p = i - (2L * d - 1) * (2L * d - 1);
      int side = (int) (p / (2L * d));
      int off = (int) (p % (2L * d));
      switch (side) {
        case 0 -> {
          dx = -d + off;
          dy = -d;
        }
        case 1 -> {
          dx = d;
          dy = -d + off;
        }
        case 2 -> {
          dx = d - off;
          dy = d;
        }
        default -> {
          dx = -d;
          dy = d - off;
        }
      }
    }
    return (HOT_Y + dy) * SIDE + HOT_X + dx;
  }

  /** Szudzik's pairing: {@code (i, j) ↦ j² + i} if {@code i < j}, else {@code i² + i + j}. */
  static long pair(long i, long j) {
    return i < j ? j * j + i : i * i + i + j;
  }

  private static long checked(long key) {
    if (key < 0 || key >= MAX_KEYS) {
      throw new IllegalArgumentException("key id must be in [0, " + MAX_KEYS + "), got " + key);
    }
    return key;
  }

  private static long floorSqrt(long n) {
    long m = (long) Math.sqrt((double) n);
    while (m * m > n) {
      m--;
    }
    while ((m + 1) * (m + 1) <= n) {
      m++;
    }
    return m;
  }
}
