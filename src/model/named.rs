//! Option enums spelled on the command line and in reports (`--simt`,
//! `--branch-order`, `--scheduler`): one list gives each its names,
//! `Display` and `FromStr`, so the spellings and the error's list of
//! known names cannot drift apart.

/// `named_choices!(Type, "what it is", { Variant => "name", ... })` adds
/// `Type::ALL`, `name()`, `Display` and a `FromStr` whose error lists the
/// known names.
macro_rules! named_choices {
    ($ty:ident, $what:literal, { $($variant:ident => $name:literal),+ $(,)? }) => {
        impl $ty {
            pub const ALL: [$ty; [$($name),+].len()] = [$($ty::$variant),+];

            pub fn name(self) -> &'static str {
                match self {
                    $($ty::$variant => $name),+
                }
            }
        }

        impl std::fmt::Display for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl std::str::FromStr for $ty {
            type Err = String;

            fn from_str(s: &str) -> Result<$ty, String> {
                $ty::ALL.into_iter().find(|k| k.name() == s).ok_or_else(|| {
                    format!(
                        "unknown {} `{s}` (known: {})",
                        $what,
                        [$($name),+].join(", ")
                    )
                })
            }
        }
    };
}

pub(crate) use named_choices;
