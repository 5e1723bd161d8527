//! ElectroDB's pagination and index naming examples, said in dynorm.

use dynorm::{Client, Error};

use super::directory::{Employee, Team, User, UserGsi1pkGsi1skIndex};

/// The team directory's users, as `team_directory.js` declares them.
pub fn seed_users(_: &str) -> Vec<User> {
    [
        ("ann", "engineering"),
        ("bo", "engineering"),
        ("cy", "design"),
    ]
    .into_iter()
    .map(|(username, team)| User {
        username: username.into(),
        team: team.into(),
        email: format!("{username}@example.com"),
    })
    .collect()
}

/// The staff, as `staff.js` declares them.
pub fn seed_staff(_: &str) -> Vec<Employee> {
    [
        ("e1", "nike", "Ann", Team::Jupiter),
        ("e2", "nike", "Bo", Team::Saturn),
        ("e3", "acme", "Cy", Team::Mercury),
    ]
    .into_iter()
    .map(|(id, organization, name, team)| Employee {
        employee_id: id.into(),
        organization_id: organization.into(),
        name: Some(name.into()),
        team: Some(team),
    })
    .collect()
}

/// Every example is said.
pub fn unsaid(_: &str) -> Option<&'static str> {
    None
}

/// Every page of a team's members: `all()` reads until there is no cursor.
pub async fn run_users(name: &str, db: &Client) -> Result<Option<usize>, Error> {
    assert_eq!(name, "pagination-example");
    let members = db
        .query_by::<UserGsi1pkGsi1skIndex>("engineering".to_owned())
        .all()
        .await?;
    Ok(Some(members.len()))
}

/// An organization's staff, through the table's key.
pub async fn run_staff(name: &str, db: &Client) -> Result<Option<usize>, Error> {
    assert_eq!(name, "collections-index-naming-staff");
    let staff = db.query_by::<Employee>("nike").all().await?;
    Ok(Some(staff.len()))
}
