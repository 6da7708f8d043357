//! `ovir conformance`: run a tree of case folders and report pass or fail,
//! with the library's runner ([`ovir::conformance`], which describes what
//! a case folder holds).

use std::io::Write;

use ovir::conformance::{run_all, write_report};
use ovir::Core;

use crate::args::ConformanceArgs;
use crate::{CliError, Outcome};

/// Runs `ovir conformance`.
pub fn run(args: &ConformanceArgs, out: &mut impl Write) -> Result<Outcome, CliError> {
    let tolerance = args.compare.tolerance().map_err(anyhow::Error::from)?;
    let results = run_all(&args.dir, &Core::new(), tolerance).map_err(anyhow::Error::from)?;
    if results.is_empty() {
        return Err(anyhow::anyhow!(
            "no case folder (a folder with a model.xml) below {}",
            args.dir.display()
        )
        .into());
    }
    write_report(&results, out).map_err(|e| CliError::Other(e.into()))?;
    Ok(if results.iter().all(|r| r.passed()) { Outcome::Success } else { Outcome::Failure })
}
