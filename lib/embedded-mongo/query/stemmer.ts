/**
 * The Porter2 ("Snowball English") stemmer, the one MongoDB's text indexes use for English, and
 * MongoDB's English stop words. Input is one lower-case word; apostrophes are part of words.
 */

const VOWELS = "aeiouy";
const DOUBLES = ["bb", "dd", "ff", "gg", "mm", "nn", "pp", "rr", "tt"];
const LI_ENDINGS = "cdeghkmnrt";

const EXCEPTIONS1: Record<string, string> = {
  skis: "ski",
  skies: "sky",
  dying: "die",
  lying: "lie",
  tying: "tie",
  idly: "idl",
  gently: "gentl",
  ugly: "ugli",
  early: "earli",
  only: "onli",
  singly: "singl",
  sky: "sky",
  news: "news",
  howe: "howe",
  atlas: "atlas",
  cosmos: "cosmos",
  bias: "bias",
  andes: "andes",
};
const EXCEPTIONS2 = new Set(["inning", "outing", "canning", "herring", "earring", "proceed", "exceed", "succeed"]);

const isVowel = (c: string | undefined) => c !== undefined && VOWELS.includes(c);

/** Start of the region after the first non-vowel that follows a vowel (from `from`). */
function regionAfter(w: string, from: number): number {
  for (let i = from + 1; i < w.length; i++) if (!isVowel(w[i]) && isVowel(w[i - 1])) return i + 1;
  return w.length;
}

function shortSyllableAtEnd(w: string): boolean {
  const n = w.length;
  if (n === 2) return isVowel(w[0]) && !isVowel(w[1]);
  if (n < 3) return false;
  const [a, b, c] = [w[n - 3], w[n - 2], w[n - 1]];
  return !isVowel(a) && isVowel(b) && !isVowel(c) && !"wxY".includes(c);
}

function longest(w: string, suffixes: string[]): string | undefined {
  let best: string | undefined;
  for (const s of suffixes) if (w.endsWith(s) && (!best || s.length > best.length)) best = s;
  return best;
}

export function stem(word: string): string {
  if (word.length <= 2) return word;
  if (EXCEPTIONS1[word]) return EXCEPTIONS1[word];
  let w = word.startsWith("'") ? word.slice(1) : word;
  if (w.startsWith("y")) w = "Y" + w.slice(1);
  for (let i = 1; i < w.length; i++) if (w[i] === "y" && isVowel(w[i - 1])) w = w.slice(0, i) + "Y" + w.slice(i + 1);

  let r1 = /^(gener|commun|arsen)/.exec(w)?.[0].length ?? regionAfter(w, 0);
  r1 = Math.max(r1, 0);
  const r2 = () => regionAfter(w, r1);
  const inR1 = (s: string) => w.length - s.length >= r1;
  const inR2 = (s: string) => w.length - s.length >= r2();

  // Step 0
  const s0 = longest(w, ["'s'", "'s", "'"]);
  if (s0) w = w.slice(0, -s0.length);

  // Step 1a
  const s1a = longest(w, ["sses", "ied", "ies", "s", "us", "ss"]);
  if (s1a === "sses") w = w.slice(0, -2);
  else if (s1a === "ied" || s1a === "ies") w = w.length > 4 ? w.slice(0, -2) : w.slice(0, -1);
  else if (s1a === "s" && /[aeiouy]/.test(w.slice(0, -2))) w = w.slice(0, -1);

  if (EXCEPTIONS2.has(w)) return w;

  // Step 1b
  const s1b = longest(w, ["eed", "eedly", "ed", "edly", "ing", "ingly"]);
  if (s1b === "eed" || s1b === "eedly") {
    if (inR1(s1b)) w = w.slice(0, -s1b.length) + "ee";
  } else if (s1b && /[aeiouy]/.test(w.slice(0, -s1b.length))) {
    w = w.slice(0, -s1b.length);
    if (w.endsWith("at") || w.endsWith("bl") || w.endsWith("iz")) w += "e";
    else if (DOUBLES.some((d) => w.endsWith(d))) w = w.slice(0, -1);
    else if (r1 >= w.length && shortSyllableAtEnd(w)) w += "e";
  }

  // Step 1c
  if (w.length > 2 && (w.endsWith("y") || w.endsWith("Y")) && !isVowel(w[w.length - 2])) w = w.slice(0, -1) + "i";

  // Step 2
  const step2: Record<string, string> = {
    tional: "tion",
    enci: "ence",
    anci: "ance",
    abli: "able",
    entli: "ent",
    izer: "ize",
    ization: "ize",
    ational: "ate",
    ation: "ate",
    ator: "ate",
    alism: "al",
    aliti: "al",
    alli: "al",
    fulness: "ful",
    ousli: "ous",
    ousness: "ous",
    iveness: "ive",
    iviti: "ive",
    biliti: "ble",
    bli: "ble",
    ogi: "og",
    fulli: "ful",
    lessli: "less",
    li: "",
  };
  const s2 = longest(w, Object.keys(step2));
  if (s2 && inR1(s2)) {
    const before = w[w.length - s2.length - 1];
    if (s2 === "ogi") {
      if (before === "l") w = w.slice(0, -3) + "og";
    } else if (s2 === "li") {
      if (before !== undefined && LI_ENDINGS.includes(before)) w = w.slice(0, -2);
    } else w = w.slice(0, -s2.length) + step2[s2];
  }

  // Step 3
  const step3: Record<string, string> = {
    tional: "tion",
    ational: "ate",
    alize: "al",
    icate: "ic",
    iciti: "ic",
    ical: "ic",
    ful: "",
    ness: "",
    ative: "",
  };
  const s3 = longest(w, Object.keys(step3));
  if (s3 && inR1(s3)) {
    if (s3 === "ative") {
      if (inR2(s3)) w = w.slice(0, -5);
    } else w = w.slice(0, -s3.length) + step3[s3];
  }

  // Step 4
  const s4 = longest(w, [
    "al",
    "ance",
    "ence",
    "er",
    "ic",
    "able",
    "ible",
    "ant",
    "ement",
    "ment",
    "ent",
    "ism",
    "ate",
    "iti",
    "ous",
    "ive",
    "ize",
    "ion",
  ]);
  if (s4 && inR2(s4)) {
    if (s4 === "ion") {
      const before = w[w.length - 4];
      if (before === "s" || before === "t") w = w.slice(0, -3);
    } else w = w.slice(0, -s4.length);
  }

  // Step 5
  if (w.endsWith("e")) {
    const rest = w.slice(0, -1);
    if (inR2("e") || (inR1("e") && !shortSyllableAtEnd(rest))) w = rest;
  } else if (w.endsWith("l") && inR2("l") && w[w.length - 2] === "l") w = w.slice(0, -1);

  return w.replace(/Y/g, "y");
}

/** The English stop words of MongoDB's text search. */
export const ENGLISH_STOP_WORDS = new Set(
  (
    "a about above after again against all am an and any are aren't as at be because been before being below between both " +
    "but by can't cannot could couldn't did didn't do does doesn't doing don't down during each few for from further had " +
    "hadn't has hasn't have haven't having he he'd he'll he's her here here's hers herself him himself his how how's i i'd " +
    "i'll i'm i've if in into is isn't it it's its itself let's me more most mustn't my myself no nor not of off on once " +
    "only or other ought our ours ourselves out over own same shan't she she'd she'll she's should shouldn't so some such " +
    "than that that's the their theirs them themselves then there there's these they they'd they'll they're they've this " +
    "those through to too under until up very was wasn't we we'd we'll we're we've were weren't what what's when when's " +
    "where where's which while who who's whom why why's with won't would wouldn't you you'd you'll you're you've your " +
    "yours yourself yourselves"
  ).split(" "),
);
