import { deterministicId } from "./ids";

/** Who a record belongs to, as records carry it: `owner: { _id, slug }`. */
export interface Owner {
  _id: string;
  slug: string;
}

/** The slug of the public owner of the served (bundled, `--data` and synthetic) materials. */
export const PUBLIC_OWNER_SLUG = "mat3ra-standata";

/**
 * The read-only public owner: every account may read and copy its materials, none may change or
 * delete them. Its id is the one scripts/build-dataset.js gives the bundled materials
 * (`McBT5JKfFWDE2mtGJ`), so it never changes between releases.
 */
export const PUBLIC_OWNER: Readonly<Owner> = Object.freeze({
  _id: deterministicId(`owner:${PUBLIC_OWNER_SLUG}`),
  slug: PUBLIC_OWNER_SLUG,
});

/** The account behind a request, as `requireSession` finds it. */
export type Caller = Owner;
