/**
 * The names of the made-up users the benchmarks load (bench:api, bench:export, bench:backup):
 * one list here, in the lowest layer, so that the embedded database's benchmark and the tools'
 * draw the same people (docs/architecture.md, the layers). Accented on purpose: the search folds them.
 */
export const FIRST_NAMES = [
  "Ana",
  "María",
  "José",
  "Lucía",
  "Martín",
  "Sofía",
  "Mateo",
  "Camila",
  "Andrés",
  "Valentina",
  "Marco",
  "Inés",
] as const;

export const LAST_NAMES = [
  "Pérez",
  "García",
  "Martínez",
  "López",
  "Gómez",
  "Díaz",
  "Muñoz",
  "Álvarez",
  "Romero",
  "Navarro",
  "Torres",
  "Ramos",
] as const;
